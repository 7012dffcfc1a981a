//! The builtin and LLVM types and attributes the lowerings attach, made with melior's
//! constructors rather than read from syntax: vectors, integer and array attributes, LLVM
//! pointers and structs. (Attributes of the gpu, nvvm and amdgpu dialects have no constructors in
//! melior; the lowerings read those few from their syntax, once each where they repeat.)

use melior::{
    Context,
    ir::{
        Attribute, Type,
        attribute::{DenseI32ArrayAttribute, DenseI64ArrayAttribute, IntegerAttribute},
        r#type::IntegerType,
    },
};

/// `vector<length x element>`.
pub fn vector(length: i64, element: Type<'_>) -> Type<'_> {
    Type::vector(&[length as u64], element)
}

/// An integer attribute of `bits` bits.
pub fn integer(context: &Context, bits: u32, value: i64) -> Attribute<'_> {
    IntegerAttribute::new(IntegerType::new(context, bits).into(), value).into()
}

/// The `alignment` of a vector load or store: `bytes` as an i64 attribute.
pub fn alignment(context: &Context, bytes: i64) -> IntegerAttribute<'_> {
    IntegerAttribute::new(IntegerType::new(context, 64).into(), bytes)
}

/// An index attribute.
pub fn index(context: &Context, value: i64) -> Attribute<'_> {
    IntegerAttribute::new(Type::index(context), value).into()
}

/// `array<i64: values>`.
pub fn i64_array<'c>(context: &'c Context, values: &[i64]) -> Attribute<'c> {
    DenseI64ArrayAttribute::new(context, values).into()
}

/// `array<i32: values>`.
pub fn i32_array<'c>(context: &'c Context, values: &[i32]) -> Attribute<'c> {
    DenseI32ArrayAttribute::new(context, values).into()
}

/// `!llvm.ptr<space>` (`!llvm.ptr` for 0).
pub fn llvm_pointer(context: &Context, space: u32) -> Type<'_> {
    melior::dialect::llvm::r#type::pointer(context, space)
}

/// `!llvm.struct<(T, T, ...)>` of `fields` fields of type `field`: the results of the matrix
/// instructions.
pub fn struct_of<'c>(context: &'c Context, field: Type<'c>, fields: usize) -> Type<'c> {
    melior::dialect::llvm::r#type::r#struct(context, &vec![field; fields], false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_print_as_their_syntax() {
        let context = crate::context();
        let f16 = Type::parse(&context, "f16").expect("f16");
        assert_eq!(vector(2, f16).to_string(), "vector<2xf16>");
        assert_eq!(integer(&context, 64, 16).to_string(), "16 : i64");
        assert_eq!(integer(&context, 32, 0).to_string(), "0 : i32");
        assert_eq!(index(&context, 8).to_string(), "8 : index");
        assert_eq!(i64_array(&context, &[1, 64, 64]).to_string(), "array<i64: 1, 64, 64>");
        assert_eq!(i32_array(&context, &[4, 2, 4]).to_string(), "array<i32: 4, 2, 4>");
        assert_eq!(llvm_pointer(&context, 3).to_string(), "!llvm.ptr<3>");
        assert_eq!(llvm_pointer(&context, 0).to_string(), "!llvm.ptr");
        assert_eq!(
            struct_of(&context, Type::float32(&context), 2).to_string(),
            "!llvm.struct<(f32, f32)>"
        );
    }
}
