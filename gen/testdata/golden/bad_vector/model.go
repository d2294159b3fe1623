package bad_vector

import (
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Item has vectors that cannot work, and indexes that cannot read them.
type Item struct {
	_ cqlgen.Pattern `table:"items,canonical" pk:"shop" ck:"item_id" size:"rows=100"`
	_ cqlgen.Pattern `table:"items_by_embedding" pk:"shop, embedding" ck:"item_id" size:"rows=1"`
	_ cqlgen.Pattern `index:"items_by_name" col:"name" match:"ann" pk:"shop" score:"similarity(l1)"`
	_ cqlgen.Pattern `index:"items_by_vec" col:"vec" pk:"shop"`
	_ cqlgen.Pattern `index:"items_by_vec2" col:"vec" match:"ann(manhattan)" pk:"shop"`
	_ cqlgen.Pattern `index:"items_by_price" col:"price" match:"range" pk:"shop" score:"similarity"`
	_ cqlgen.Pattern `index:"items_near" col:"embedding" match:"ann" score:"distance"`
	_ cqlgen.Pattern `index:"items_by_part" col:"price" filter:"name eq"`
	_ cqlgen.Pattern `index:"items_by_shape" col:"shape_vec" match:"ann" filter:"label eq"`
	_ cqlgen.Pattern `index:"items_by_shape2" col:"shape_vec2" match:"ann" filter:"price eq"`
	_ cqlgen.Pattern `index:"items_by_shape3" col:"shape_vec3" match:"ann" filter:"nowhere eq"`
	_ cqlgen.Pattern `index:"items_by_kind" col:"kind" pk:"shop"`
	_ cqlgen.Pattern `index:"items_by_shape4" col:"shape_vec4" match:"ann" filter:"kind contains"`
	_ cqlgen.Pattern `index:"items_by_shape5" col:"shape_vec5" match:"ann" filter:"kind eq and label eq"`

	Shop      string     `db:"shop"`
	ItemID    string     `db:"item_id"`
	Name      string     `db:"name"`
	Embedding []float32  `db:"embedding" cql:"vector<float, 3>"`
	Vec       []float32  `db:"vec" cql:"vector<float, 3>"`
	Doubles   []float64  `db:"doubles" cql:"vector<float, 3>"`
	NoDim     []float32  `db:"no_dim" cql:"vector<float>"`
	Zero      []float32  `db:"zero" cql:"vector<float, 0>"`
	Ints      []float32  `db:"ints" cql:"vector<int, 3>"`
	Pointer   *[]float32 `db:"pointer" cql:"vector<float, 3>"`
	Part      Part       `db:"part"`
	Price     int64      `db:"price"`
	Label     string     `db:"label"`
	ShapeVec  []float32  `db:"shape_vec" cql:"vector<float, 3>"`
	ShapeVec2 []float32  `db:"shape_vec2" cql:"vector<float, 3>"`
	ShapeVec3 []float32  `db:"shape_vec3" cql:"vector<float, 3>"`
	ShapeVec4 []float32  `db:"shape_vec4" cql:"vector<float, 3>"`
	ShapeVec5 []float32  `db:"shape_vec5" cql:"vector<float, 3>"`
	Kind      string     `db:"kind"`
}

// Part is a user-defined type, which cannot hold a vector.
type Part struct {
	Shape []float32 `db:"shape" cql:"vector<float, 2>"`
}
