//! What MLIR 22's parser crashes on, found in the source text before the parser sees it: dense
//! arrays of `index` (below), and nesting deeper than its recursion has stack for ([`MAX_NESTING`]).
//!
//! `Parser::parseDenseArrayAttr` accepts any element type for which `isIntOrIndexOrFloat()` holds
//! and then asks it for `getIntOrFloatBitWidth()`, which `index` does not have: `array<index: 1>`
//! (the fuzzer's mutant of an `operandSegmentSizes`) kills the process with SIGSEGV in the parser,
//! before any of our code runs. Every other element type is handled by the parser: `none`,
//! vectors, `complex` and the like fail its `isIntOrIndexOrFloat()` test, and integers and floats
//! whose width is not a multiple of 8 its width test, each with a located error. An alias
//! (`!a = index`, `!b = !a`) reaches the same crash, so aliases are followed.
//!
//! Every tool that parses user text (`tile-opt` through [`crate::driver::opt_main`], `tile-compile`,
//! `tile-run` and the C API through [`crate::driver::parse_file`]) asks [`check`] first and
//! reports its refusal as a located error instead of parsing.

use std::collections::HashMap;

/// Where and why the text must not reach MLIR's parser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// Byte offset into the text.
    pub offset: usize,
    /// 1-based line of `offset`.
    pub line: usize,
    /// 1-based byte column of `offset` (MLIR's columns).
    pub column: usize,
    /// The error message.
    pub message: String,
}

/// The deepest nesting of brackets the tools take: braces (regions, attribute dictionaries), square
/// brackets (array attributes), parentheses (affine expressions, locations) and angle brackets
/// (types and attributes with parameters), counted together. MLIR's parser, verifier, passes and
/// printer recurse once a level: on a thread of 8 MiB of stack `tile-opt` handled 3,000 nested
/// `scf.if` regions and overflowed at 6,000, and 20,000 nested `[`, `(` or `tuple<` overflowed it
/// too; real kernels nest a few dozen.
pub const MAX_NESTING: usize = 1000;

/// Returns the first place in `source` that MLIR 22's parser would crash on, if any.
pub fn check(source: &[u8]) -> Option<Refusal> {
    let tokens = tokens(source);
    too_deep(source, &tokens).or_else(|| index_array(source, &tokens))
}

/// How `token` (at `index` of `tokens`) changes the nesting: +1 opens, -1 closes. A `>` that is part
/// of `->` or `>=` closes nothing.
fn nesting_step(tokens: &[Token], index: usize) -> isize {
    let token = &tokens[index];
    if token.kind != Kind::Punct {
        return 0;
    }
    match token.text {
        b"{" | b"[" | b"(" | b"<" => 1,
        b"}" | b"]" | b")" => -1,
        b">" => {
            let adjacent = |other: Option<&Token>, offset: usize, text: &[u8]| {
                other.is_some_and(|other| other.offset == offset && other.is(text))
            };
            let arrow = index > 0 && adjacent(tokens.get(index - 1), token.offset.wrapping_sub(1), b"-");
            let at_least = adjacent(tokens.get(index + 1), token.offset + 1, b"=");
            if arrow || at_least { 0 } else { -1 }
        }
        _ => 0,
    }
}

/// The first bracket that opens nesting deeper than [`MAX_NESTING`].
fn too_deep(source: &[u8], tokens: &[Token]) -> Option<Refusal> {
    let mut depth = 0usize;
    (0..tokens.len()).find_map(|index| {
        match nesting_step(tokens, index) {
            1 => depth += 1,
            -1 => depth = depth.saturating_sub(1),
            _ => {}
        }
        (depth > MAX_NESTING).then(|| {
            let offset = tokens[index].offset;
            let (line, column) = line_column(source, offset);
            Refusal {
                offset,
                line,
                column,
                message: format!(
                    "nests regions, attributes or types (braces, brackets, parentheses, angle brackets) deeper than {MAX_NESTING} levels, more than MLIR's recursive parser and passes are given stack for: flatten the nesting"
                ),
            }
        })
    })
}

/// The first dense array whose element type is `index` (see the module's doc).
fn index_array(source: &[u8], tokens: &[Token]) -> Option<Refusal> {
    let aliases = aliases(tokens);
    tokens.windows(3).find_map(|window| {
        let [array, open, element] = window else { return None };
        if array.kind != Kind::Word || array.text != b"array" || !open.is(b"<") {
            return None;
        }
        let through = match element.kind {
            Kind::Word if element.text == b"index" => None,
            Kind::Alias if is_index(element.text, &aliases) => Some(element.text),
            _ => return None,
        };
        let (line, column) = line_column(source, element.offset);
        let alias = through
            .map(|name| format!(" (through the alias '!{}')", String::from_utf8_lossy(name)))
            .unwrap_or_default();
        Some(Refusal {
            offset: element.offset,
            line,
            column,
            message: format!("a dense array's element type must be an integer or a float, got 'index'{alias}"),
        })
    })
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// A bare identifier or keyword (`array`, `index`, `llvm.array`, `f32`).
    Word,
    /// `!name`: a type alias or a dialect type; `text` is the name without the `!`.
    Alias,
    /// One punctuation byte.
    Punct,
    /// Anything else that separates words: a string, a number, another sigil's name.
    Other,
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    kind: Kind,
    text: &'a [u8],
    offset: usize,
}

impl Token<'_> {
    fn is(&self, punct: &[u8]) -> bool {
        self.kind == Kind::Punct && self.text == punct
    }
}

fn is_word_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_'
}

/// Bytes that continue a bare identifier (MLIR's `bare-id`).
fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$' | b'.')
}

/// Bytes of a sigil's name (MLIR's `suffix-id`, which also takes `-`).
fn is_suffix_byte(byte: u8) -> bool {
    is_word_byte(byte) || byte == b'-'
}

/// MLIR's tokens as far as [`check`] needs them: comments and whitespace dropped, string
/// literals (with their escapes) kept whole so that nothing inside them counts.
fn tokens(source: &[u8]) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut at = 0;
    let run = |from: usize, keep: fn(u8) -> bool| from + source[from..].iter().take_while(|&&byte| keep(byte)).count();
    while at < source.len() {
        let byte = source[at];
        let start = at;
        let kind = match byte {
            _ if byte.is_ascii_whitespace() => {
                at += 1;
                continue;
            }
            b'/' if source.get(at + 1) == Some(&b'/') => {
                at = run(at, |byte| byte != b'\n');
                continue;
            }
            b'"' => {
                at += 1;
                while at < source.len() && !matches!(source[at], b'"' | b'\n') {
                    at += if source[at] == b'\\' { 2 } else { 1 };
                }
                at = (at + 1).min(source.len());
                Kind::Other
            }
            b'!' => {
                at = run(at + 1, is_suffix_byte);
                Kind::Alias
            }
            b'%' | b'@' | b'#' | b'^' => {
                at = run(at + 1, is_suffix_byte);
                Kind::Other
            }
            _ if is_word_start(byte) => {
                at = run(at, is_word_byte);
                Kind::Word
            }
            _ if byte.is_ascii_digit() => {
                at = run(at, |byte| byte.is_ascii_alphanumeric() || byte == b'.');
                Kind::Other
            }
            _ => {
                at += 1;
                Kind::Punct
            }
        };
        let text = match kind {
            Kind::Alias => &source[start + 1..at],
            _ => &source[start..at],
        };
        tokens.push(Token {
            kind,
            text,
            offset: start,
        });
    }
    tokens
}

/// Type alias definitions, `!name = index` or `!name = !other`: what each name stands for when it
/// is `index` or another alias (MLIR's aliases name exactly one type; any other definition
/// cannot make an element type `index`).
fn aliases<'a>(tokens: &[Token<'a>]) -> HashMap<&'a [u8], Token<'a>> {
    tokens
        .windows(3)
        .filter(|window| {
            window[0].kind == Kind::Alias
                && window[1].is(b"=")
                && (window[2].kind == Kind::Alias || (window[2].kind == Kind::Word && window[2].text == b"index"))
        })
        .map(|window| (window[0].text, window[2]))
        .collect()
}

/// Whether the alias `name` stands for `index`, following chains of aliases (a cycle does not).
fn is_index(name: &[u8], aliases: &HashMap<&[u8], Token>) -> bool {
    let mut name = name;
    for _ in 0..=aliases.len() {
        match aliases.get(name) {
            Some(target) if target.kind == Kind::Word => return true,
            Some(target) => name = target.text,
            None => return false,
        }
    }
    false
}

fn line_column(source: &[u8], offset: usize) -> (usize, usize) {
    let before = &source[..offset];
    let line = before.iter().filter(|&&byte| byte == b'\n').count() + 1;
    let line_start = before.iter().rposition(|&byte| byte == b'\n').map_or(0, |at| at + 1);
    (line, offset - line_start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(source: &str) -> Option<(usize, usize)> {
        check(source.as_bytes()).map(|refusal| (refusal.line, refusal.column))
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_refused_at_its_brace() {
        let nested = |levels: usize| {
            let mut text = "func.func @f(%c: i1) {\n".to_owned();
            text += &"scf.if %c {\n".repeat(levels);
            text += &"}\n".repeat(levels + 1);
            text
        };
        assert_eq!(check(nested(MAX_NESTING - 1).as_bytes()), None);
        let refusal = check(nested(MAX_NESTING).as_bytes()).expect("refused");
        assert_eq!((refusal.line, refusal.column), (MAX_NESTING + 1, 11));
        assert!(refusal.message.contains("deeper than 1000 levels"));
        // Braces inside strings and comments do not count.
        let quoted = format!(
            "// {}\n\"{}\"",
            "{".repeat(2 * MAX_NESTING),
            "{".repeat(2 * MAX_NESTING)
        );
        assert_eq!(check(quoted.as_bytes()), None);
    }

    #[test]
    fn every_kind_of_bracket_counts_towards_the_nesting() {
        let limit = MAX_NESTING;
        for (open, close) in [("[", "]"), ("(", ")"), ("tuple<", ">"), ("{", "}")] {
            let nested = |levels: usize| format!("x = {}{}", open.repeat(levels), close.repeat(levels));
            assert_eq!(check(nested(limit).as_bytes()), None, "{open}");
            let refusal = check(nested(20_000).as_bytes()).expect("refused");
            assert_eq!(refusal.column, 5 + limit * open.len() + open.len() - 1, "{open}");
        }
        // Kinds add up: 600 regions around 600 array levels go too deep.
        let mixed = format!(
            "{}{}{}{}",
            "{".repeat(600),
            "[".repeat(600),
            "]".repeat(600),
            "}".repeat(600)
        );
        assert!(check(mixed.as_bytes()).is_some());
        // `->` and `>=` close nothing; a `>` closing more than was opened does not go negative.
        let arrows = format!("{}{}", "(i32) -> i32 ".repeat(5 * limit), "d0 >= 0 ".repeat(5 * limit));
        assert_eq!(check(arrows.as_bytes()), None);
        let closers = format!("{}{}", ">".repeat(limit), "<".repeat(limit));
        assert_eq!(check(closers.as_bytes()), None);
    }

    #[test]
    fn index_element_types_are_refused_where_they_stand() {
        assert_eq!(refused("x = array<index: 1, 2>"), Some((1, 11)));
        assert_eq!(refused("x = array <\n  index:1>"), Some((2, 3)));
        assert_eq!(refused("x = array<index>"), Some((1, 11)));
        assert_eq!(refused("x = array< // note\n index : 1>"), Some((2, 2)));
        assert_eq!(refused("#a = array<index: 0>"), Some((1, 12)));
        assert_eq!(
            refused("<{operandSegmentSizes = array<index: 1, 2, 1, 0>}>"),
            Some((1, 31))
        );
    }

    #[test]
    fn aliases_of_index_are_followed() {
        assert_eq!(refused("!a = index\n!b = !a\nx = array<!b: 1>"), Some((3, 11)));
        let refusal = check(b"!a = index\nx = array<!a: 1>").unwrap();
        assert!(refusal.message.contains("'!a'"), "{}", refusal.message);
        assert_eq!(refused("!a = !b\n!b = !a\nx = array<!a: 1>"), None);
        assert_eq!(refused("!a = i32\nx = array<!a: 1>"), None);
    }

    #[test]
    fn what_the_parser_handles_passes() {
        for source in [
            "x = array<i32: 1, 2>",
            "x = array<none: 1>",
            "x = array<f4E2M1FN: 1.0>",
            "x = array<indexed: 1>",
            "x = !llvm.array<2 x index>",
            "x = llvm.array<index: 1>",
            "%array<index",
            "x = \"array<index: 1>\"",
            "x = \"a \\\" array<index: 1>\"",
            "// array<index: 1>\n",
            "x = my_array<index: 1>",
            "x = dense<1> : tensor<2xindex>",
        ] {
            assert_eq!(refused(source), None, "{source}");
        }
    }

    #[test]
    fn a_string_escape_does_not_end_the_string() {
        assert_eq!(refused("x = \"\\\\\" y = array<index: 1>"), Some((1, 20)));
    }
}
