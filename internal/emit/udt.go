package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/cqlgen/cqlgen/internal/model"
)

// udtMethods writes the methods through which the driver at gocqlPath
// (the package's, model.Package.Driver) reads and writes u:
// gocql.UDTMarshaler and gocql.UDTUnmarshaler, which name each field by
// its CQL name, so that the struct's db tags decide the mapping as they
// do for columns. A field the schema has and the struct does not is
// written as null and skipped when read. Both drivers declare these
// interfaces alike, with their own TypeInfo, Marshal and Unmarshal; a
// driver recognises only the methods written against its own.
func udtMethods(f *jen.File, gocqlPath string, u *model.UDT) {
	var marshal, unmarshal []jen.Code
	for _, fd := range u.Fields {
		if fd.Type == nil {
			continue
		}
		v := jen.Id("u").Dot(fd.GoName)
		marshal = append(marshal, jen.Case(jen.Lit(fd.Column)).Block(
			jen.Return(jen.Qual(gocqlPath, "Marshal").Call(jen.Id("info"), v.Clone()))))
		dst := scanInto(fd, fd.Type, v.Clone())
		if model.ScannerOf(fd, fd.Type) != model.ScanField {
			// The runtime's scanners decode themselves whatever the
			// driver; the driver's Unmarshal needs them adapted.
			dst = jen.Qual(adapterPath(gocqlPath), "Dest").Call(dst)
		}
		unmarshal = append(unmarshal, jen.Case(jen.Lit(fd.Column)).Block(
			jen.Return(jen.Qual(gocqlPath, "Unmarshal").Call(jen.Id("info"), jen.Id("data"), dst))))
	}
	doc(f, "MarshalUDT implements gocql.UDTMarshaler: it encodes the field called name of the user-defined type %s, which %s is stored as.", u.Name, u.GoName)
	f.Func().Params(jen.Id("u").Id(u.GoName)).Id("MarshalUDT").Params(jen.Id("name").String(), jen.Id("info").Qual(gocqlPath, "TypeInfo")).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Switch(jen.Id("name")).Block(marshal...),
		jen.Return(jen.Nil(), jen.Nil()),
	)
	doc(f, "UnmarshalUDT implements gocql.UDTUnmarshaler: it decodes the field called name of the user-defined type %s into u.", u.Name)
	f.Func().Params(jen.Id("u").Op("*").Id(u.GoName)).Id("UnmarshalUDT").Params(jen.Id("name").String(), jen.Id("info").Qual(gocqlPath, "TypeInfo"), jen.Id("data").Index().Byte()).Error().Block(
		jen.Switch(jen.Id("name")).Block(unmarshal...),
		jen.Return(jen.Nil()),
	)
}

// adapterPath is the import path of cqlgen's adapter for the driver at
// gocqlPath.
func adapterPath(gocqlPath string) string {
	if gocqlPath == model.GocqlV2Path {
		return "github.com/cqlgen/cqlgen/runtime/gocqlv2"
	}
	return "github.com/cqlgen/cqlgen/runtime/gocqlv1"
}

// renderUDTs renders the methods of the package's user-defined types as
// one part of the file, as renderEntity does an entity's code.
func renderUDTs(p *model.Package) part {
	f := newFile(p)
	f.NoFormat = true
	for _, u := range p.UDTs {
		udtMethods(f, p.Driver, u)
	}
	return renderPart(f, "the user-defined types")
}
