//! Exact arithmetic on JSON numbers: comparisons across integers and floats, integrality, and
//! `multipleOf` on the decimal value the number was written as.

use std::cmp::Ordering;
use std::fmt::Write as _;

use serde_json::Number;

/// A JSON number as the validator sees it: an exact integer, or a float.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    pub(crate) fn of(n: &Number) -> Self {
        if let Some(u) = n.as_u64() {
            Self::Int(i128::from(u))
        } else if let Some(i) = n.as_i64() {
            Self::Int(i128::from(i))
        } else {
            Self::Float(n.as_f64().unwrap_or(f64::NAN))
        }
    }

    /// Whether the value has no fractional part (`1.0` is an integer, as JSON Schema says).
    pub(crate) fn is_integer(self) -> bool {
        match self {
            Self::Int(_) => true,
            Self::Float(f) => f.is_finite() && f.fract() == 0.0,
        }
    }

    /// The exact integer value, when there is one that fits.
    fn as_int(self) -> Option<i128> {
        match self {
            Self::Int(i) => Some(i),
            Self::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < TWO_POW_127 => {
                // Exact: `f` is integral and within range.
                #[allow(clippy::cast_possible_truncation)]
                Some(f as i128)
            }
            Self::Float(_) => None,
        }
    }

    /// Exact numeric comparison; `None` only for NaN, which JSON cannot carry.
    pub(crate) fn compare(self, other: Self) -> Option<Ordering> {
        match (self, other) {
            (Self::Int(a), Self::Int(b)) => Some(a.cmp(&b)),
            (Self::Int(a), Self::Float(b)) => compare_int_float(a, b),
            (Self::Float(a), Self::Int(b)) => compare_int_float(b, a).map(Ordering::reverse),
            (Self::Float(a), Self::Float(b)) => a.partial_cmp(&b),
        }
    }

    /// Numeric equality: `1 == 1.0`.
    pub(crate) fn equals(self, other: Self) -> bool {
        self.compare(other) == Some(Ordering::Equal)
    }

    /// Feeds a hash consistent with [`Num::equals`].
    pub(crate) fn hash_into(self, state: &mut impl std::hash::Hasher) {
        match self.as_int() {
            Some(i) => {
                state.write_u8(0);
                state.write_i128(i);
            }
            None => {
                state.write_u8(1);
                if let Self::Float(f) = self {
                    state.write_u64(f.to_bits());
                }
            }
        }
    }

    /// Whether `self` is an integer multiple of `divisor` (which must be positive).
    ///
    /// Both numbers are taken as the shortest decimal that reads back as them, i.e. as written
    /// in the JSON text, and compared exactly: `0.0075` is a multiple of `0.0001`.
    pub(crate) fn is_multiple_of(self, divisor: Self) -> bool {
        let (Some((value_digits, value_exp)), Some((div_digits, div_exp))) =
            (decimal(self), decimal(divisor))
        else {
            return false;
        };
        if value_digits == 0 {
            return true;
        }
        if div_digits == 0 {
            return false;
        }
        if value_exp >= div_exp {
            // value = value_digits * 10^k * 10^div_exp: reduce modulo div_digits step by step.
            // Residues stay below div_digits (< 2^65), so `* 10` never overflows u128.
            let mut rest = value_digits % div_digits;
            for _ in 0..(value_exp - div_exp) {
                if rest == 0 {
                    break;
                }
                rest = rest * 10 % div_digits;
            }
            rest == 0
        } else {
            // divisor = div_digits * 10^k * 10^value_exp; if that overflows it exceeds the value.
            let scaled = u32::try_from(div_exp - value_exp)
                .ok()
                .and_then(|k| 10u128.checked_pow(k))
                .and_then(|p| p.checked_mul(div_digits));
            match scaled {
                Some(d) => value_digits % d == 0,
                None => false,
            }
        }
    }
}

const TWO_POW_127: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;

fn compare_int_float(int: i128, float: f64) -> Option<Ordering> {
    if float.is_nan() {
        return None;
    }
    if float >= TWO_POW_127 {
        return Some(Ordering::Less);
    }
    if float < -TWO_POW_127 {
        return Some(Ordering::Greater);
    }
    let whole = float.trunc();
    // Exact: `whole` is integral and within i128's range.
    #[allow(clippy::cast_possible_truncation)]
    let whole_int = whole as i128;
    Some(match int.cmp(&whole_int) {
        Ordering::Equal => whole.partial_cmp(&float).unwrap_or(Ordering::Equal),
        other => other,
    })
}

/// `|n|` as `digits * 10^exponent`, using the shortest decimal that reads back as `n`.
fn decimal(n: Num) -> Option<(u128, i32)> {
    match n {
        Num::Int(i) => Some((i.unsigned_abs(), 0)),
        Num::Float(f) if f.is_finite() => {
            let mut text = StackText::default();
            write!(text, "{:e}", f.abs()).ok()?;
            let (mantissa, exponent) = text.as_str().split_once('e')?;
            let mut exponent: i32 = exponent.parse().ok()?;
            let mut digits: u128 = 0;
            let mut seen_point = false;
            for byte in mantissa.bytes() {
                match byte {
                    b'.' => seen_point = true,
                    b'0'..=b'9' => {
                        digits = digits
                            .checked_mul(10)?
                            .checked_add(u128::from(byte - b'0'))?;
                        if seen_point {
                            exponent -= 1;
                        }
                    }
                    _ => return None,
                }
            }
            Some((digits, exponent))
        }
        Num::Float(_) => None,
    }
}

/// A small fixed buffer for formatting one float without allocating.
struct StackText {
    bytes: [u8; 48],
    len: usize,
}

impl Default for StackText {
    fn default() -> Self {
        Self {
            bytes: [0; 48],
            len: 0,
        }
    }
}

impl StackText {
    fn as_str(&self) -> &str {
        self.bytes
            .get(..self.len)
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or("")
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::json;

    fn num(v: serde_json::Value) -> Num {
        Num::of(v.as_number().unwrap())
    }

    fn multiple(v: serde_json::Value, d: serde_json::Value) -> bool {
        num(v).is_multiple_of(num(d))
    }

    #[test]
    fn multiple_of_decimal_fractions() {
        assert!(multiple(json!(0.0075), json!(0.0001)));
        assert!(multiple(json!(0.3), json!(0.1)));
        assert!(multiple(json!(19.99), json!(0.01)));
        assert!(multiple(json!(4.5), json!(1.5)));
        assert!(!multiple(json!(35), json!(1.5)));
        assert!(!multiple(json!(0.00751), json!(0.0001)));
        assert!(multiple(json!(10), json!(2.5)));
        assert!(multiple(json!(-7.5), json!(2.5)));
        assert!(multiple(json!(0), json!(0.7)));
        assert!(multiple(json!(0.0), json!(3)));
    }

    #[test]
    fn multiple_of_integers_and_big_numbers() {
        assert!(multiple(json!(10), json!(2)));
        assert!(!multiple(json!(7), json!(2)));
        assert!(multiple(json!(u64::MAX), json!(5)));
        assert!(!multiple(json!(u64::MAX), json!(2)));
        assert!(multiple(json!(i64::MIN), json!(2)));
        assert!(multiple(json!(12_391_239_123_u64), json!(1e-8)));
        assert!(!multiple(json!(1e308), json!(0.123456789)));
        assert!(multiple(json!(1e308), json!(2)));
        assert!(!multiple(json!(1e-300), json!(1e300)));
        assert!(multiple(json!(2.0), json!(1)));
        assert!(!multiple(json!(2.5), json!(1)));
    }

    #[test]
    fn integers_include_integral_floats() {
        assert!(num(json!(1)).is_integer());
        assert!(num(json!(1.0)).is_integer());
        assert!(num(json!(-0.0)).is_integer());
        assert!(num(json!(1e300)).is_integer());
        assert!(!num(json!(1.5)).is_integer());
        assert!(!num(json!(1e-10)).is_integer());
    }

    #[test]
    fn comparisons_are_exact_across_representations() {
        assert!(num(json!(1)).equals(num(json!(1.0))));
        assert_eq!(
            num(json!(9_007_199_254_740_993_u64)).compare(num(json!(9_007_199_254_740_992.0))),
            Some(Ordering::Greater)
        );
        assert_eq!(num(json!(2)).compare(num(json!(2.5))), Some(Ordering::Less));
        assert_eq!(
            num(json!(-2)).compare(num(json!(-2.5))),
            Some(Ordering::Greater)
        );
        assert_eq!(
            num(json!(-3)).compare(num(json!(-2.5))),
            Some(Ordering::Less)
        );
        assert_eq!(
            num(json!(3)).compare(num(json!(2.5))),
            Some(Ordering::Greater)
        );
        assert_eq!(
            num(json!(u64::MAX)).compare(num(json!(1e300))),
            Some(Ordering::Less)
        );
        assert_eq!(
            num(json!(i64::MIN)).compare(num(json!(-1e300))),
            Some(Ordering::Greater)
        );
    }
}
