//! What `tile.print` writes, one line at a time: the interpreter prints with it, and the CPU
//! reference's print calls (`tile-run`) format through it, so both write the very lines the GPU
//! targets' `printf` formats do.

/// A float as C's `%g` writes it (6 significant digits; `inf`, `-inf`, `nan`).
pub fn format_float(x: f64) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    const PRECISION: i32 = 6;
    // The exponent after rounding to the precision decides the style.
    let scientific = format!("{:.*e}", (PRECISION - 1) as usize, x);
    let (mantissa, exponent) = scientific.split_once('e').expect("an exponent");
    let exponent: i32 = exponent.parse().expect("a decimal exponent");
    if (-4..PRECISION).contains(&exponent) {
        let fixed = format!("{:.*}", (PRECISION - 1 - exponent) as usize, x);
        trim_zeros(&fixed).into()
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim_zeros(mantissa), exponent.abs())
    }
}

/// `text` without the trailing zeros of its fraction (and without a bare trailing point).
fn trim_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

/// The value of a print: an integer in decimal or a float as `%g`.
pub enum Printed {
    /// An integer or index.
    Int(i64),
    /// A float (16-bit ones widened).
    Float(f64),
}

impl std::fmt::Display for Printed {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Self::Int(x) => write!(f, "{x}"),
            Self::Float(x) => f.write_str(&format_float(*x)),
        }
    }
}

/// One printed line: `<message> block (x, y, z): <value>` for a scalar, with ` [i, j]` before
/// the colon for a tile's element.
pub fn line(message: &str, block: [i64; 3], index: Option<&[i64]>, value: Printed) -> String {
    let [x, y, z] = block;
    let at = index.map_or(String::new(), |index| {
        let coordinates: Vec<String> = index.iter().map(i64::to_string).collect();
        format!(" [{}]", coordinates.join(", "))
    });
    format!("{message} block ({x}, {y}, {z}){at}: {value}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_c_percent_g() {
        for (x, printed) in [
            (1.0, "1"),
            (0.5, "0.5"),
            (-2.25, "-2.25"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (3.0e38, "3e+38"),
            (1.0 / 3.0, "0.333333"),
            (999999.5, "1e+06"),
            (f64::INFINITY, "inf"),
            (-0.0, "-0"),
        ] {
            assert_eq!(format_float(x), printed, "{x}");
        }
    }

    #[test]
    fn a_line_names_the_block_and_the_element() {
        assert_eq!(
            line("x", [1, 0, 0], Some(&[2, 3]), Printed::Float(0.5)),
            "x block (1, 0, 0) [2, 3]: 0.5"
        );
        assert_eq!(line("k", [0, 2, 0], None, Printed::Int(-7)), "k block (0, 2, 0): -7");
    }
}
