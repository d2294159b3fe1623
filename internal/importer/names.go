package importer

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cqlgen/cqlgen/internal/model"
)

// entityName is the Go name of the entity stored in a table: the table's
// name in the generator's Go case (model.GoName) with its head noun
// singular, the word before _by_ or else the last one: users is User,
// country_flags CountryFlag, videos_by_tag VideoByTag. A name taken
// already is the table's own name in Go case, then numbered.
func (im *importer) entityName(table string) string {
	parts := strings.Split(table, "_")
	head := len(parts) - 1
	if i := slices.Index(parts, "by"); i > 0 {
		head = i - 1
	}
	parts[head] = singular(parts[head])
	name := model.GoName(strings.Join(parts, "_"))
	if !im.used[name] {
		return name
	}
	return im.goName(table, false)
}

// plurals are the plurals the rules of singular get wrong, and the words
// that are the same in both.
var plurals = map[string]string{
	"people": "person", "children": "child", "men": "man", "women": "woman", "mice": "mouse", "geese": "goose",
	"feet": "foot", "teeth": "tooth", "indices": "index", "vertices": "vertex", "matrices": "matrix",
	"analyses": "analysis", "crises": "crisis", "theses": "thesis", "criteria": "criterion",
	"statuses": "status", "buses": "bus", "viruses": "virus", "bonuses": "bonus", "campuses": "campus",
	"aliases": "alias", "quizzes": "quiz", "heroes": "hero", "potatoes": "potato", "tomatoes": "tomato", "echoes": "echo",
	"movies": "movie", "cookies": "cookie", "zombies": "zombie", "calories": "calorie", "rookies": "rookie",
	"selfies": "selfie", "hoodies": "hoodie", "caches": "cache", "niches": "niche", "menus": "menu",
	"leaves": "leaf", "shelves": "shelf", "halves": "half", "knives": "knife", "lives": "life", "wives": "wife",
	"news": "news", "series": "series", "species": "species", "data": "data", "metadata": "metadata",
	"media": "media", "sms": "sms", "gps": "gps", "dns": "dns", "cms": "cms", "analytics": "analytics",
	"statistics": "statistics", "physics": "physics", "economics": "economics", "logistics": "logistics",
}

// singular is an English plural's singular, a word not ending as a
// plural does as it is: categories is category, addresses address,
// status status.
func singular(w string) string {
	if s, ok := plurals[w]; ok {
		return s
	}
	switch {
	case len(w) < 3:
		return w
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"),
		strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zzes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:len(w)-1]
	}
	return w
}

// repoMethods are the methods a generated repository may declare besides
// its read methods.
var repoMethods = []string{"Insert", "Update", "Delete", "Get", "GetVersioned", "Modify", "GetMany", "InsertIfAbsent",
	"Entity", "Tables", "Verify", "Repair", "Backfill"}

// methods names the read methods: By and the partition key's columns
// (ByEmail, ByOrgIDAndDay) for a table, By and the column for an index
// (SimilarBy for a vector's), each unique among its repository's methods
// and, with the types generated code derives from it (ByEmailOptions,
// the ByEmailRow of a table that stores some of the columns), in the
// package. A name taken is the table's or index's own in Go case, then
// numbered. The source of truth of an entity without clustering columns
// has no read method: Get reads it.
func (im *importer) methods(entities []*entity) {
	for _, e := range entities {
		repo := map[string]bool{e.name: true} // a method named as its entity reads badly
		for _, m := range repoMethods {
			repo[m] = true
		}
		// claim takes the first free name of candidates, with its derived
		// package-level names.
		claim := func(derived []string, candidates ...string) string {
			free := func(m string) bool {
				if repo[m] || repo["Scan"+m] {
					return false
				}
				for _, d := range derived {
					if im.used[m+d] {
						return false
					}
				}
				return true
			}
			pick := ""
			for _, c := range candidates {
				if free(c) {
					pick = c
					break
				}
			}
			for i := 2; pick == ""; i++ {
				if c := candidates[len(candidates)-1] + strconv.Itoa(i); free(c) {
					pick = c
				}
			}
			repo[pick] = true
			for _, d := range derived {
				im.used[pick+d] = true
			}
			return pick
		}
		c := e.tables[0]
		for i, t := range e.tables {
			if i == 0 && len(t.t.Clustering) == 0 {
				continue // Get
			}
			var derived []string
			if len(t.t.Clustering) > 0 {
				derived = append(derived, "Options")
			}
			if i > 0 && len(t.cols) < len(c.cols) {
				derived = append(derived, "Row")
			}
			t.method = claim(derived, "By"+goNames(t.t.PartitionKey), model.GoName(t.t.Name))
		}
		for _, t := range e.tables {
			for _, ix := range t.indexes {
				by := "By"
				if ix.ann {
					by = "SimilarBy"
				}
				ix.method = claim([]string{"Options"}, by+model.GoName(ix.col), model.GoName(ix.name))
			}
		}
	}
}

// goNames joins the Go names of columns with And: OrgIDAndDay.
func goNames(cols []string) string {
	var names []string
	for _, c := range cols {
		names = append(names, model.GoName(c))
	}
	return strings.Join(names, "And")
}
