"""ptosim.mlir.builtin: construction, equality, accessors and printed forms of the builtin
types and attributes, and builtin.module / builtin.unrealized_conversion_cast."""

from __future__ import annotations

import math
import struct

import pytest

from ptosim.mlir import builtin as b
from ptosim.mlir.exceptions import VerifyException
from ptosim.mlir.ir import Attribute, Block, Region, TypeAttribute


def test_integer_types_compare_by_width_and_signedness() -> None:
    assert b.IntegerType(32) == b.i32 and hash(b.IntegerType(32)) == hash(b.i32)
    assert b.IntegerType(b.IntAttr(8)) == b.i8
    assert b.IntegerType(32, b.Signedness.SIGNED) != b.i32
    assert b.IntegerType(32, b.SignednessAttr(b.Signedness.UNSIGNED)) == \
        b.IntegerType(32, b.Signedness.UNSIGNED)
    assert b.i32.width == b.IntAttr(32) and b.i32.width.data == 32
    assert b.i32.signedness.data is b.Signedness.SIGNLESS
    assert b.i32.bitwidth == 32 and b.i1.size == 1 and b.i64.format == "<q"
    assert b.IntegerType(7, b.Signedness.UNSIGNED).format == "<B"
    assert isinstance(b.i32, TypeAttribute)
    with pytest.raises(VerifyException, match="nonnegative"):
        b.IntegerType(-1)


def test_value_ranges() -> None:
    assert b.i8.value_range() == (-128, 256)
    assert b.IntegerType(8, b.Signedness.SIGNED).value_range() == (-128, 128)
    assert b.IntegerType(8, b.Signedness.UNSIGNED).value_range() == (0, 256)
    assert b.i1.value_range() == (-1, 2)
    assert b.i8.normalized_value(255) == -1 and b.i8.normalized_value(127) == 127
    assert b.i8.normalized_value(256) is None
    assert b.i8.normalized_value(257, truncate_bits=True) == 1
    assert b.IntegerType(8, b.Signedness.UNSIGNED).normalized_value(255) == 255
    with pytest.raises(ValueError, match="out of range"):
        b.i8.get_normalized_value(-200)


def test_parameterless_types_are_equal_by_class() -> None:
    assert b.IndexType() == b.IndexType() and hash(b.IndexType()) == hash(b.IndexType())
    assert b.Float32Type() == b.f32 and b.f32 != b.f16 and b.f16 != b.bf16
    assert b.NoneType() != b.NoneAttr() and b.UnitAttr() == b.UnitAttr()
    assert b.IndexType() != b.i64 and b.f32 != "f32"
    assert isinstance(b.f32, b.AnyFloat) and isinstance(b.f8E4M3FN, b.AnyFloat)
    assert not isinstance(b.i32, b.AnyFloat) and not isinstance(b.IndexType(), b.AnyFloat)


def test_attributes_are_immutable() -> None:
    with pytest.raises(AttributeError):
        b.i32.width = b.IntAttr(3)  # type: ignore[misc]
    with pytest.raises(AttributeError):
        b.StringAttr("x").data = "y"  # type: ignore[misc]
    with pytest.raises(TypeError):
        b.DictionaryAttr({"a": b.i1}).data["b"] = b.i1  # type: ignore[index]


def test_data_attributes() -> None:
    assert b.StringAttr("a") == b.StringAttr("a") != b.StringAttr("b")
    assert b.IntAttr(1) != b.IntegerAttr(1, b.i32) and b.IntAttr(0) != b.StringAttr("0")
    assert bool(b.IntAttr(0)) is False and bool(b.IntAttr(2)) is True
    assert b.ArrayAttr([b.i32, b.f32]) == b.ArrayAttr((b.i32, b.f32))
    assert list(b.ArrayAttr([b.i1])) == [b.i1] and len(b.ArrayAttr([b.i1, b.i8])) == 2
    assert b.ArrayAttr([]).data == ()
    d1 = b.DictionaryAttr({"a": b.i1, "b": b.f32})
    d2 = b.DictionaryAttr({"b": b.f32, "a": b.i1})
    assert d1 == d2 and hash(d1) == hash(d2) and d1.data["a"] == b.i1
    assert b.FloatData(0.0) != b.FloatData(-0.0)
    assert b.FloatData(math.nan) == b.FloatData(math.nan)
    assert hash(b.FloatData(1.0)) == hash(b.FloatData(1.0))
    assert b.SignednessAttr(b.Signedness.SIGNED).data is b.Signedness.SIGNED


def test_integer_attr() -> None:
    a = b.IntegerAttr(255, b.i8)
    assert a.value == b.IntAttr(-1) and a.type == b.i8 and a.get_type() == b.i8
    assert b.IntegerAttr(5, 32) == b.IntegerAttr(b.IntAttr(5), b.i32)
    assert b.IntegerAttr(300, b.i8, truncate_bits=True).value.data == 44
    assert b.IntegerAttr(2**70, b.IndexType()).value.data == 2**70
    assert b.IntegerAttr(1, b.i1).value.data == -1 and bool(b.IntegerAttr(1, b.i1))
    assert not b.IntegerAttr(0, b.i32)
    assert b.IntegerAttr.from_bool(True) == b.IntegerAttr(1, b.i1)
    assert b.IntegerAttr.from_index_int_value(3).type == b.IndexType()
    assert b.BoolAttr is b.IntegerAttr
    with pytest.raises(VerifyException) as err:
        b.IntegerAttr(256, b.i8)
    assert str(err.value) == ("Integer value 256 is out of range for type i8 which supports "
                              "values in the range [-128, 256)")


def test_float_attr_rounds_to_its_type() -> None:
    assert b.FloatAttr(0.1, b.f32).value.data == struct.unpack("<f", struct.pack("<f", 0.1))[0]
    assert b.FloatAttr(0.1, b.f64).value.data == 0.1
    assert b.FloatAttr(1.0, 16).type == b.f16 and b.FloatAttr(1.0, 64).type == b.f64
    assert b.FloatAttr(1 / 3, b.bf16).value.data == 0.333984375
    assert b.FloatAttr(1000.0, b.f8E4M3FN).value.data == 448.0 or \
        math.isnan(b.FloatAttr(1000.0, b.f8E4M3FN).value.data)
    assert b.FloatAttr(b.FloatData(2.0), b.f32) == b.FloatAttr(2.0, b.f32)
    assert b.FloatAttr(0.0, b.f32) != b.FloatAttr(-0.0, b.f32)
    with pytest.raises(ValueError, match="Invalid bitwidth: 8"):
        b.FloatAttr(1.0, 8)
    with pytest.raises(OverflowError):
        b.FloatAttr(1e10, b.f16)


@pytest.mark.parametrize(("t", "value", "bits"), [
    (b.bf16, 1.0, 0x3F80), (b.bf16, -2.0, 0xC000), (b.bf16, math.inf, 0x7F80),
    (b.f16, 1.0, 0x3C00), (b.f8E4M3FN, 448.0, 0x7E), (b.f8E4M3FN, math.nan, 0x7F),
    (b.f8E4M3FN, 1.0, 0x38), (b.f8E5M2, 1.0, 0x3C), (b.f8E5M2, math.inf, 0x7C),
    (b.f8E8M0FNU, 1.0, 0x7F), (b.f8E8M0FNU, 2.0**-127, 0x00), (b.f4E2M1FN, 6.0, 0x7),
    (b.f4E2M1FN, 100.0, 0x7), (b.f4E2M1FN, -0.5, 0x9), (b.f6E3M2FN, 28.0, 0x1F),
    (b.f8E5M2FNUZ, math.nan, 0x80), (b.tf32, 1.0, 0x1FC00),
])
def test_float_bit_patterns(t: b._FloatType, value: float, bits: int) -> None:
    size = t.size
    raw = t.pack([value])  # type: ignore[attr-defined]
    assert int.from_bytes(raw, "little") == bits and len(raw) == size
    back = t.unpack(raw, 1)[0]  # type: ignore[attr-defined]
    assert (math.isnan(back) and math.isnan(value)) or back == value or \
        (t == b.f4E2M1FN and value == 100.0 and back == 6.0)


def test_float_types() -> None:
    assert [t.bitwidth for t in (b.f16, b.bf16, b.f32, b.f64, b.tf32, b.f8E5M2, b.f4E2M1FN,
                                 b.f6E2M3FN, b.f8E8M0FNU)] == [16, 16, 32, 64, 19, 8, 4, 6, 8]
    assert b.tf32.size == 3 and b.f4E2M1FN.compile_time_size == 1
    assert b.f32.unpack(b.f32.pack([1.5, 2.5]), 2) == (1.5, 2.5)
    assert list(b.f8E4M3FN.iter_unpack(bytes([0x38, 0x40]))) == [1.0, 2.0]
    with pytest.raises(ValueError, match="does not support signed values"):
        b.f8E8M0FNU.pack([-1.0])
    with pytest.raises(ValueError, match="not product"):
        b.bf16.unpack(b"\x00", 1)
    with pytest.raises(NotImplementedError):
        b.f80.pack([1.0])


@pytest.mark.parametrize(("attr", "text"), [
    (b.i1, "i1"), (b.IntegerType(4, b.Signedness.SIGNED), "si4"),
    (b.IntegerType(16, b.Signedness.UNSIGNED), "ui16"), (b.IndexType(), "index"),
    (b.f16, "f16"), (b.bf16, "bf16"), (b.f8E4M3FN, "f8E4M3FN"), (b.NoneType(), "none"),
    (b.NoneAttr(), "none"), (b.UnitAttr(), "unit"), (b.IntAttr(7), "#builtin.int<7>"),
    (b.FloatData(2.0), "#builtin.float_data<2.0>"),
    (b.SignednessAttr(b.Signedness.UNSIGNED), "#builtin.signedness<unsigned>"),
    (b.StringAttr('a"\n\\\u00e9'), '"a\\22\\0A\\\\\\C3\\A9"'), (b.BytesAttr(b"\x01z"), '"\\01z"'),
    (b.ArrayAttr([b.i32, b.StringAttr("s")]), '[i32, "s"]'),
    (b.DictionaryAttr({"a": b.i1, "b c": b.UnitAttr()}), '{a = i1, "b c"}'),
    (b.IntegerAttr(-3, b.i32), "-3 : i32"), (b.IntegerAttr(1, b.i1), "true"),
    (b.IntegerAttr(0, b.i1), "false"), (b.IntegerAttr(4, b.IndexType()), "4 : index"),
    (b.FloatAttr(1.0, b.f32), "1.000000e+00 : f32"),
    (b.FloatAttr(0.1, b.f32), "1.000000e-01 : f32"),
    (b.FloatAttr(1.2345678, b.f32), "1.23456776 : f32"),
    (b.FloatAttr(123456789.0, b.f32), "0x4CEB79A3 : f32"),
    (b.FloatAttr(math.inf, b.f32), "0x7f800000 : f32"),
    (b.FloatAttr(1 / 3, b.f64), "0.33333333333333331 : f64"),
    (b.FloatAttr(-1.5, b.bf16), "-1.500000e+00 : bf16"),
    (b.SymbolRefAttr("f"), "@f"), (b.SymbolRefAttr("a b", ["c"]), '@"a b"::@c'),
    (b.FunctionType.from_lists([b.i32], [b.f32]), "(i32) -> f32"),
    (b.FunctionType.from_lists([], []), "() -> ()"),
    (b.FunctionType.from_lists([b.i1], [b.i1, b.i8]), "(i1) -> (i1, i8)"),
    (b.FunctionType.from_lists([], [b.FunctionType.from_lists([], [])]), "() -> (() -> ())"),
    (b.VectorType(b.f32, [4, 8]), "vector<4x8xf32>"), (b.VectorType(b.i1, []), "vector<i1>"),
    (b.VectorType(b.f32, [4], b.ArrayAttr([b.IntegerAttr.from_bool(True)])),
     "vector<[4]xf32>"),
    (b.TensorType(b.f32, [2, b.DYNAMIC_INDEX]), "tensor<2x?xf32>"),
    (b.TensorType(b.i8, [], b.StringAttr("e")), 'tensor<i8, "e">'),
    (b.UnrankedTensorType(b.f16), "tensor<*xf16>"),
    (b.MemRefType(b.f32, [b.DYNAMIC_INDEX]), "memref<?xf32>"),
    (b.MemRefType(b.f32, []), "memref<f32>"),
    (b.MemRefType(b.f32, [8, 8], b.StridedLayoutAttr([17, 1]), b.IntegerAttr(1, b.i64)),
     "memref<8x8xf32, strided<[17, 1]>, 1 : i64>"),
    (b.MemRefType(b.i8, [2], memory_space=b.StringAttr("gm")), 'memref<2xi8, "gm">'),
    (b.StridedLayoutAttr([None, 4], None), "strided<[?, 4], offset: ?>"),
    (b.StridedLayoutAttr([1], 3), "strided<[1], offset: 3>"),
    (b.UnrankedMemRefType.from_type(b.f32, b.IntAttr(1)), "memref<*xf32, #builtin.int<1>>"),
    (b.TupleType([b.i1, b.f32]), "tuple<i1, f32>"),
    (b.UNKNOWN_LOC, "loc(unknown)"),
    (b.FileLineColLoc(b.StringAttr("k.pto"), b.IntAttr(3), b.IntAttr(7)), 'loc("k.pto":3:7)'),
    (b.NameLoc(b.StringAttr("n"), b.UNKNOWN_LOC), 'loc("n"(unknown))'),
    (b.CallSiteLoc(b.UNKNOWN_LOC, b.UNKNOWN_LOC), "loc(callsite(unknown at unknown))"),
    (b.FusedLoc([b.UNKNOWN_LOC], b.StringAttr("m")), 'loc(fused<"m">[unknown])'),
    (b.DenseArrayBase.from_list(b.i32, [1, 0]), "array<i32: 1, 0>"),
    (b.DenseArrayBase.from_list(b.i1, [1, 0]), "array<i1: true, false>"),
    (b.DenseArrayBase.from_list(b.i64, []), "array<i64>"),
    (b.DenseArrayBase.from_list(b.f32, [0.5]), "array<f32: 5.000000e-01>"),
    (b.DenseIntOrFPElementsAttr.from_list(b.VectorType(b.i16, [4]), [0]),
     "dense<0> : vector<4xi16>"),
    (b.DenseIntOrFPElementsAttr.from_list(b.TensorType(b.i32, [2, 2]), [1, 2, 3, 4]),
     "dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>"),
    (b.DenseIntOrFPElementsAttr.from_list(b.TensorType(b.f32, [2]), [1.0, 2.0]),
     "dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>"),
    (b.DenseIntOrFPElementsAttr.from_list(b.TensorType(b.i8, [0]), []),
     "dense<> : tensor<0xi8>"),
    (b.DenseIntOrFPElementsAttr.from_list(b.TensorType(b.i8, [101]), list(range(101))),
     'dense<"0x' + bytes(range(101)).hex().upper() + '"> : tensor<101xi8>'),
])
def test_printed_forms(attr: Attribute, text: str) -> None:
    assert str(attr) == text


def test_shaped_types() -> None:
    m = b.MemRefType(b.f32, [4, b.DYNAMIC_INDEX, 3])
    assert m.get_shape() == (4, b.DYNAMIC_INDEX, 3) and m.get_num_dims() == 3
    assert m.shape == b.ArrayAttr([b.IntAttr(4), b.IntAttr(b.DYNAMIC_INDEX), b.IntAttr(3)])
    assert m.element_type == b.f32 and m.get_element_type() == b.f32
    assert m.layout == b.NoneAttr() and m.memory_space == b.NoneAttr()
    assert m.get_strides() == (None, 3, 1) and m.get_offset() == 0
    assert not m.has_static_shape()
    s = b.MemRefType(b.f32, [8, 8], b.StridedLayoutAttr([17, 1], 5))
    assert s.get_strides() == (17, 1) and s.get_offset() == 5
    assert b.MemRefType(b.f32, [2], b.StridedLayoutAttr([None], None)).get_offset() is None
    assert b.MemRefType(b.f32, [2, 3]).element_count() == 6
    assert b.MemRefType(b.f32, [2]) == b.MemRefType(b.f32, b.ArrayAttr([b.IntAttr(2)]))
    v = b.VectorType(b.i8, [2, 3])
    assert v.get_shape() == (2, 3) and v.get_scalable_dims() == (False, False)
    assert v.get_num_scalable_dims() == 0 and v.element_type == b.i8
    with pytest.raises(VerifyException, match="scalable dimension"):
        b.VectorType(b.i8, [2], b.ArrayAttr([]))
    t = b.TensorType(b.f16, [1, 2])
    assert t.get_shape() == (1, 2) and t.encoding == b.NoneAttr()
    assert b.ShapedType.strides_for_shape([2, 3, 4]) == (12, 4, 1)
    assert b.DYNAMIC_INDEX == -(2**63)


def test_function_and_symbol_attrs() -> None:
    f = b.FunctionType.from_lists([b.i32, b.f32], [b.i1])
    assert f.inputs == b.ArrayAttr([b.i32, b.f32]) and f.outputs.data == (b.i1,)
    assert f == b.FunctionType(b.ArrayAttr([b.i32, b.f32]), b.ArrayAttr([b.i1]))
    assert f == b.FunctionType.from_attrs(f.inputs, f.outputs)
    s = b.SymbolRefAttr("a", ["b", b.StringAttr("c")])
    assert s.root_reference == b.StringAttr("a") and s.string_value() == "a.b.c"
    assert [r.data for r in s.nested_references] == ["b", "c"]
    assert b.SymbolRefAttr.get("x") == b.SymbolRefAttr(b.StringAttr("x"))
    loc = b.FileLineColLoc(b.StringAttr("f"), b.IntAttr(1), b.IntAttr(2))
    assert loc.filename.data == "f" and loc.line.data == 1 and loc.column.data == 2
    assert loc != b.UNKNOWN_LOC and b.UnknownLoc() == b.UNKNOWN_LOC
    assert isinstance(loc, b.LocationAttr) and not isinstance(b.i1, b.LocationAttr)


def test_dense_attributes() -> None:
    d = b.DenseIntOrFPElementsAttr.from_list(b.VectorType(b.i16, [4]), [3])
    assert d.get_values() == (3, 3, 3, 3) and d.is_splat() and len(d) == 4
    assert d.get_shape() == (4,) and d.get_element_type() == b.i16
    assert d.get_attrs()[0] == b.IntegerAttr(3, b.i16)
    f = b.DenseIntOrFPElementsAttr.from_list(b.TensorType(b.f32, [2]), [1.5, 2.0])
    assert f.get_values() == (1.5, 2.0) and not f.is_splat()
    assert list(f.iter_values()) == [1.5, 2.0] and f.get_attrs()[1] == b.FloatAttr(2.0, b.f32)
    assert b.DenseIntOrFPElementsAttr.from_list(b.TensorType(b.i8, [1]), [255]).get_values() \
        == (-1,)
    with pytest.raises(VerifyException, match="zero-rank"):
        b.DenseIntOrFPElementsAttr(b.TensorType(b.i8, []), b.BytesAttr(b"\x01\x02"))
    a = b.DenseArrayBase.from_list(b.i32, [1, -2])
    assert a.get_values() == (1, -2) and len(a) == 2 and a.elt_type == b.i32
    assert a.get_attrs() == (b.IntegerAttr(1, b.i32), b.IntegerAttr(-2, b.i32))
    assert a == b.DenseArrayBase.from_list(b.i32, [1, -2]) != b.DenseArrayBase.from_list(
        b.i64, [1, -2])
    with pytest.raises(VerifyException, match="not divisible"):
        b.DenseArrayBase(b.i32, b.BytesAttr(b"\x00"))


def test_module_op() -> None:
    empty = b.ModuleOp([])
    assert str(empty) == "builtin.module {\n}"
    assert empty.sym_name is None and empty.body.block is not None
    assert list(empty.ops) == []
    named = b.ModuleOp(Region(Block()), {"k": b.UnitAttr()}, b.StringAttr("m"))
    assert named.sym_name == b.StringAttr("m")
    assert str(named) == "builtin.module @m attributes {k} {\n}"
    inner = b.ModuleOp([])
    outer = b.ModuleOp([inner])
    assert list(outer.ops) == [inner] and inner.parent_op() is outer
    assert str(outer) == "builtin.module {\n  builtin.module {\n  }\n}"
    outer.verify()


def test_unrealized_conversion_cast() -> None:
    block = Block(arg_types=[b.i32, b.f32])
    cast = b.UnrealizedConversionCastOp.get(list(block.args), [b.i64])
    block.add_op(cast)
    module = b.ModuleOp(Region(Block()))
    assert cast.inputs == block.args and [r.type for r in cast.outputs] == [b.i64]
    assert cast.name == "builtin.unrealized_conversion_cast"
    assert str(b.ModuleOp([b.UnrealizedConversionCastOp.get([], [b.IndexType()])])) == \
        "builtin.module {\n  %0 = builtin.unrealized_conversion_cast to index\n}"
    del module


def test_builtin_dialect() -> None:
    assert b.Builtin.name == "builtin"
    assert {op.name for op in b.Builtin.operations} == {
        "builtin.module", "builtin.unrealized_conversion_cast"}
    names = {a.name for a in b.Builtin.attributes}
    assert {"integer_type", "index", "f32", "memref", "vector", "dense", "array"} <= names
