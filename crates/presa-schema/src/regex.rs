//! `pattern`: ECMA-262 regular expressions run on fancy-regex, with a bounded backtracking budget.
//!
//! The source is rewritten where ECMA-262 and fancy-regex disagree on common syntax: `\d` and
//! `\w` are ASCII-only in ECMA-262, `\uXXXX` (and surrogate pairs) and `\cX` escapes, `[` `&`
//! `~` inside a class are literals, a `-` inside a class is a range only between two
//! characters (fancy-regex would read `--` as a class difference), and `[]` / `[^]` match
//! nothing / anything. Other differences (for instance `\b` word boundaries being
//! Unicode-aware) remain.

use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};

use fancy_regex::{Regex, RegexBuilder};

/// A compiled `pattern` keyword.
#[derive(Debug)]
pub(crate) struct Pattern {
    source: String,
    regex: Regex,
}

impl Pattern {
    /// Compiles `source`; the error is the engine's complaint.
    pub(crate) fn new(source: &str, backtrack_limit: usize) -> Result<Self, String> {
        let translated = translate(source);
        let regex = catch_unwind(|| {
            RegexBuilder::new(&translated)
                .backtrack_limit(backtrack_limit)
                .build()
        })
        .map_err(|_| "the regex engine failed on this pattern".to_owned())?
        .map_err(|e| e.to_string())?;
        Ok(Self {
            source: source.to_owned(),
            regex,
        })
    }

    /// The pattern as written in the schema.
    pub(crate) fn source(&self) -> &str {
        &self.source
    }

    /// Whether the pattern matches anywhere in `text`; `None` if it could not be decided within
    /// the backtracking budget (or the engine failed).
    pub(crate) fn is_match(&self, text: &str) -> Option<bool> {
        // The engine has had panics on odd patterns; a peer's pattern must not take us down.
        catch_unwind(AssertUnwindSafe(|| self.regex.is_match(text)))
            .ok()?
            .ok()
    }
}

/// Where a class stands, for ECMA-262's rule on `-`: a range between two single characters,
/// a literal anywhere else.
#[derive(Clone, Copy, Default)]
struct Class {
    /// The last item was a single character that a `-` may start a range from.
    open: bool,
    /// A range's `-` was written: the next item ends it.
    ranging: bool,
    /// The last item was a class escape, which (Annex B) a `-` after it joins to the next
    /// item as no range: the three are each themselves.
    after_set: bool,
}

impl Class {
    /// A single character was written.
    fn character(&mut self) {
        self.open = !self.ranging;
        self.ranging = false;
        self.after_set = false;
    }

    /// A class escape (`\d`, `\w`, …) was written: no range starts or ends at it.
    fn set(&mut self) {
        self.after_set = !self.ranging;
        self.open = false;
        self.ranging = false;
    }
}

/// Whether `-` followed by `rest` is a range's `-` in a class at `class`: after a single
/// character, before one (not the class's end, not a class escape, which Annex B makes the
/// `-` a literal).
fn is_range(class: Class, rest: &std::iter::Peekable<std::str::Chars<'_>>) -> bool {
    let mut ahead = rest.clone();
    match ahead.next() {
        None | Some(']') => false,
        Some('\\') => {
            class.open && !matches!(ahead.next(), Some('d' | 'D' | 'w' | 'W' | 's' | 'S'))
        }
        Some(_) => class.open,
    }
}

/// Rewrites ECMA-262 syntax that fancy-regex reads differently.
fn translate(source: &str) -> String {
    let mut out = String::with_capacity(source.len() + 8);
    let mut chars = source.chars().peekable();
    let mut in_class = false;
    let mut class = Class::default();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(escaped) = chars.next() else {
                    out.push('\\');
                    break;
                };
                if in_class {
                    if matches!(escaped, 'd' | 'D' | 'w' | 'W' | 's' | 'S') {
                        class.set();
                    } else {
                        class.character();
                    }
                }
                match escaped {
                    'd' => out.push_str(if in_class { "0-9" } else { "[0-9]" }),
                    'D' => out.push_str(if in_class { "[:^digit:]" } else { "[^0-9]" }),
                    'w' => out.push_str(if in_class {
                        "0-9A-Za-z_"
                    } else {
                        "[0-9A-Za-z_]"
                    }),
                    'W' => out.push_str(if in_class {
                        "[:^word:]"
                    } else {
                        "[^0-9A-Za-z_]"
                    }),
                    'u' => match hex4(&mut chars) {
                        Some(unit) => push_code_unit(&mut out, unit, &mut chars),
                        None => out.push_str("\\u"),
                    },
                    'c' => match chars.peek().copied() {
                        Some(letter) if letter.is_ascii_alphabetic() => {
                            chars.next();
                            push_code_point(&mut out, u32::from(letter) % 32);
                        }
                        _ => out.push_str("\\c"),
                    },
                    'x' => match hex2(&mut chars) {
                        Some(byte) => push_code_point(&mut out, byte),
                        None => out.push_str("\\x"),
                    },
                    '/' => out.push('/'),
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            }
            '[' if !in_class => {
                if chars.peek() == Some(&']') {
                    chars.next();
                    out.push_str("(?!)");
                    continue;
                }
                if chars.peek() == Some(&'^') {
                    let mut ahead = chars.clone();
                    ahead.next();
                    if ahead.peek() == Some(&']') {
                        chars = ahead;
                        chars.next();
                        out.push_str("[\\s\\S]");
                        continue;
                    }
                    chars.next();
                    out.push_str("[^");
                } else {
                    out.push('[');
                }
                in_class = true;
                class = Class::default();
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '-' if in_class => {
                let before_end = matches!(chars.peek(), None | Some(']'));
                if is_range(class, &chars) {
                    out.push('-');
                    class.open = false;
                    class.ranging = true;
                } else if class.after_set && !before_end {
                    // `\d-a`: the class escape, a `-` and the next item, none a range
                    out.push_str("\\-");
                    class.open = false;
                    class.ranging = true;
                    class.after_set = false;
                } else {
                    out.push_str("\\-");
                    class.character();
                }
            }
            '[' | '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
                class.character();
            }
            c => {
                out.push(c);
                if in_class {
                    class.character();
                }
            }
        }
    }
    out
}

fn hex2(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<u32> {
    let mut ahead = chars.clone();
    let high = ahead.next()?.to_digit(16)?;
    let low = ahead.next()?.to_digit(16)?;
    *chars = ahead;
    Some(high * 16 + low)
}

fn hex4(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<u32> {
    let mut ahead = chars.clone();
    let mut value = 0;
    for _ in 0..4 {
        value = value * 16 + ahead.next()?.to_digit(16)?;
    }
    *chars = ahead;
    Some(value)
}

/// Writes one `\uXXXX` unit, joining a high surrogate with a following `\uXXXX` low one.
fn push_code_unit(
    out: &mut String,
    unit: u32,
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
) {
    if (0xD800..0xDC00).contains(&unit) {
        let mut ahead = chars.clone();
        if ahead.next() == Some('\\')
            && ahead.next() == Some('u')
            && let Some(low) = hex4(&mut ahead).filter(|low| (0xDC00..0xE000).contains(low))
        {
            *chars = ahead;
            push_code_point(out, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
            return;
        }
    }
    push_code_point(out, unit);
}

fn push_code_point(out: &mut String, code_point: u32) {
    let _ = write!(out, "\\x{{{code_point:X}}}");
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn matches(pattern: &str, text: &str) -> Option<bool> {
        Pattern::new(pattern, 100_000).unwrap().is_match(text)
    }

    #[test]
    fn ecma_classes_are_ascii() {
        assert_eq!(matches(r"^\d+$", "123"), Some(true));
        assert_eq!(matches(r"^\d+$", "١٢٣"), Some(false));
        assert_eq!(matches(r"^\w+$", "é"), Some(false));
        assert_eq!(matches(r"^[\w-]+$", "a-b_c"), Some(true));
        assert_eq!(matches(r"^[\D]+$", "ab"), Some(true));
        assert_eq!(matches(r"^[\W]+$", "a"), Some(false));
        assert_eq!(matches(r"^\W$", "é"), Some(true));
    }

    #[test]
    fn ecma_escapes_and_classes() {
        assert_eq!(matches(r"^\u0041$", "A"), Some(true));
        assert_eq!(matches(r"^\uD83D\uDE00$", "😀"), Some(true));
        assert_eq!(matches(r"^\cJ$", "\n"), Some(true));
        assert_eq!(matches(r"^a\/b$", "a/b"), Some(true));
        assert_eq!(matches(r"[]", "anything"), Some(false));
        assert_eq!(matches(r"^[^]$", "\n"), Some(true));
        assert_eq!(matches(r"^[[&~]+$", "[&~"), Some(true));
    }

    #[test]
    fn a_dash_in_a_class_is_a_range_only_between_two_characters() {
        // `%--` is the range from `%` to `-`; fancy-regex alone reads `--` as a difference
        assert_eq!(matches(r"^[%--]+$", "%&-"), Some(true));
        assert_eq!(matches(r"^[%----<]+$", "%,-0<"), Some(true));
        assert_eq!(matches(r"^[%----<]+$", "="), Some(false));
        assert_eq!(matches(r"^[--<]+$", "-0<"), Some(true));
        assert_eq!(matches(r"^[a-]+$", "a-"), Some(true));
        assert_eq!(matches(r"^[-a]+$", "-a"), Some(true));
        assert_eq!(matches(r"^[a-c-e]+$", "abc-e"), Some(true));
        assert_eq!(matches(r"^[a-c-e]+$", "d"), Some(false));
        // Annex B: no range from or to a class escape; the `-` is itself
        assert_eq!(matches(r"^[\d-z]+$", "5-z"), Some(true));
        assert_eq!(matches(r"^[\d-z]+$", "y"), Some(false));
        assert_eq!(matches(r"^[z-\d]+$", "z-5"), Some(true));
        // and the item after that `-` is itself too, starting no range
        assert_eq!(matches(r"^[\d--z]+$", "5-z"), Some(true));
        assert_eq!(matches(r"^[\d--z]+$", "a"), Some(false));
        assert_eq!(matches(r"^[\d-a-z]+$", "5-az"), Some(true));
        assert_eq!(matches(r"^[\d-a-z]+$", "m"), Some(false));
        assert_eq!(matches(r"^[\d-z-a]+$", "z-a"), Some(true));
        // `\xHH` is one character, at either end of a range
        assert_eq!(matches(r"^[!-\x41--z]+$", "A-az"), Some(true));
        assert_eq!(matches(r"^[\x41-\x43]+$", "ABC"), Some(true));
        // escapes are characters that ranges start and end at
        assert_eq!(matches(r"^[\u0041-\u0043]+$", "ABC"), Some(true));
        assert_eq!(matches(r"^[\--\/]+$", "-./"), Some(true));
        // the fuzz target's find: a range written as `/-j` inside a long class
        assert_eq!(matches(r"[:/-json]{1,}", "e"), Some(true));
    }

    #[test]
    fn search_is_unanchored() {
        assert_eq!(matches("a+", "xxaay"), Some(true));
        assert_eq!(matches("^a", "ba"), Some(false));
    }

    #[test]
    fn catastrophic_backtracking_gives_up() {
        assert_eq!(
            matches(r"^((?=a)a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"),
            None
        );
    }

    #[test]
    fn bad_patterns_are_rejected() {
        assert!(Pattern::new("(", 100).is_err());
        assert!(Pattern::new("[b-a]", 100).is_err());
    }
}
