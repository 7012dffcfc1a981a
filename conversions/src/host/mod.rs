//! The host side of every GPU lowering: the `func.func` that prepares a kernel's arguments and
//! launches it ([`launch`]), the host expressions a launcher recomputes the grid and sizes from
//! ([`values`]), and the symbols a lowered kernel defines ([`symbols`]).

pub mod launch;
pub mod symbols;
pub mod values;
