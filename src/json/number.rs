//! Decimal text to the nearest `f64` (ties to even), for the JSON parser (`value.rs`).
//!
//! The standard library's parser is correct too, but it carries about 11 KB of power-of-five
//! tables into the wasm module for a number schemas rarely hold. Here the common case (at
//! most 19 significant digits that fit 53 bits, a power of ten up to 22: one correctly
//! rounded multiply or divide, as Clinger's fast path) needs no table, and every other number
//! is computed exactly with small big integers: its digits over a power of ten, divided to 55
//! to 56 quotient bits plus a sticky bit, then rounded once (`libm::ldexp` places it, exactly,
//! subnormals included). The tests compare it with the standard library's parser.

/// Significant digits kept; any further nonzero digit only sets a sticky digit. A halfway
/// point between two doubles has at most 767 significant digits, so 800 decide every case.
const KEPT_DIGITS: usize = 800;

/// The nearest `f64` to a number the reader checked against JSON's grammar, or `None` when it
/// is beyond `f64::MAX` (it would round to infinity).
pub(super) fn parse_f64(text: &str) -> Option<f64> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], exponent_of(&body[at + 1..])),
        None => (body, 0),
    };
    let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // The significant digits, leading zeros dropped, and the power of ten of the last one.
    let digits = integer
        .bytes()
        .chain(fraction.bytes())
        .skip_while(|&d| d == b'0');
    let (mut kept, mut dropped, mut sticky) = (Vec::new(), 0usize, false);
    for d in digits {
        if kept.len() < KEPT_DIGITS {
            kept.push(d - b'0');
        } else {
            dropped += 1;
            sticky |= d != b'0';
        }
    }
    let mut power = exponent
        .saturating_sub(fraction.len() as i64)
        .saturating_add(dropped as i64);
    if sticky {
        kept.push(1);
        power -= 1;
    }
    let magnitude = magnitude(&kept, power)?;
    Some(if negative { -magnitude } else { magnitude })
}

/// The exponent after `e`, saturated (a huge exponent is out of range either way).
fn exponent_of(text: &str) -> i64 {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let value = digits.bytes().fold(0i64, |n, d| {
        n.saturating_mul(10).saturating_add(i64::from(d - b'0'))
    });
    if negative {
        -value
    } else {
        value
    }
}

/// `digits × 10^power`, rounded; `None` past `f64::MAX`.
fn magnitude(digits: &[u8], power: i64) -> Option<f64> {
    if digits.is_empty() {
        return Some(0.0);
    }
    let count = digits.len() as i64;
    // Beyond these the result is infinite or zero whatever the digits (10^309 > f64::MAX;
    // below 10^-325 every value rounds to zero). Saturating: an exponent of 20 digits
    // saturates to i64::MAX when read, and must stay out of range rather than wrap to zero.
    let scale = count.saturating_add(power);
    if scale > 310 {
        return None;
    }
    if scale < -330 {
        return Some(0.0);
    }
    if count <= 19 {
        let m = digits.iter().fold(0u64, |n, &d| n * 10 + u64::from(d));
        if m <= 1 << 53 && (-22..=22).contains(&power) {
            // Both m and 10^|power| are exact doubles: one correctly rounded operation.
            let scale = POWERS_OF_TEN[power.unsigned_abs() as usize];
            return Some(if power < 0 {
                m as f64 / scale
            } else {
                m as f64 * scale
            });
        }
    }
    let mut numerator = Big::from_digits(digits);
    let mut denominator = Big(vec![1]);
    if power >= 0 {
        numerator.mul_pow10(power as u64);
    } else {
        denominator.mul_pow10(power.unsigned_abs());
    }
    // Align so the quotient has 55 or 56 bits: 53 kept, a rounding bit, and one more.
    let shift = numerator.bits() as i64 - denominator.bits() as i64 - 55;
    if shift < 0 {
        numerator = numerator.shl(shift.unsigned_abs() as usize);
    } else {
        denominator = denominator.shl(shift as usize);
    }
    let (quotient, remainder) = numerator.div_small_quotient(&denominator);
    round(quotient, !remainder, shift)
}

/// `quotient × 2^shift` (quotient of 55 or 56 bits; `exact` when nothing was left over),
/// rounded to the precision of the double it falls in; `None` past `f64::MAX`.
fn round(quotient: u64, exact: bool, shift: i64) -> Option<f64> {
    let bits = 64 - i64::from(quotient.leading_zeros());
    let exponent = bits - 1 + shift;
    if exponent > 1023 {
        return None;
    }
    // Bits a double holds at this exponent: 53 when normal, fewer as a subnormal; below
    // zero, the value is under a quarter of the smallest subnormal.
    let precision = if exponent >= -1022 {
        53
    } else {
        53 - (-1022 - exponent)
    };
    if precision < 0 {
        return Some(0.0);
    }
    // 2 to 56 bits (the quotient has 55 or 56, 0 <= precision <= 53).
    let drop = (bits - precision) as u32;
    let kept = quotient >> drop;
    let below = quotient & ((1u64 << drop) - 1);
    let (half, rest) = (below >= 1 << (drop - 1), below != 1 << (drop - 1));
    let up = half && (rest || !exact || kept & 1 == 1);
    let m = kept + u64::from(up);
    let value = libm::ldexp(m as f64, (shift + i64::from(drop)) as i32);
    value.is_finite().then_some(value)
}

/// 10^0 to 10^22: every one an exact double.
const POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// An unsigned big integer, 32-bit words, least significant first, no trailing zero words.
struct Big(Vec<u32>);

impl Big {
    fn from_digits(digits: &[u8]) -> Big {
        let mut b = Big(Vec::new());
        for chunk in digits.chunks(9) {
            let value = chunk.iter().fold(0u32, |n, &d| n * 10 + u32::from(d));
            b.mul_add(10u32.pow(chunk.len() as u32), value);
        }
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    /// self = self × factor + add.
    fn mul_add(&mut self, factor: u32, add: u32) {
        let mut carry = u64::from(add);
        for word in &mut self.0 {
            let product = u64::from(*word) * u64::from(factor) + carry;
            *word = product as u32;
            carry = product >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }

    fn mul_pow10(&mut self, mut power: u64) {
        while power >= 9 {
            self.mul_add(1_000_000_000, 0);
            power -= 9;
        }
        self.mul_add(10u32.pow(power as u32), 0);
    }

    fn bits(&self) -> usize {
        match self.0.last() {
            Some(top) => self.0.len() * 32 - top.leading_zeros() as usize,
            None => 0,
        }
    }

    fn shl(&self, by: usize) -> Big {
        let (words, bits) = (by / 32, by % 32);
        let mut out = vec![0u32; words];
        let mut carry = 0u32;
        for &word in &self.0 {
            if bits == 0 {
                out.push(word);
            } else {
                out.push((word << bits) | carry);
                carry = word >> (32 - bits);
            }
        }
        if carry != 0 {
            out.push(carry);
        }
        let mut b = Big(out);
        b.trim();
        b
    }

    fn at_least(&self, other: &Big) -> bool {
        if self.0.len() != other.0.len() {
            return self.0.len() > other.0.len();
        }
        for (a, b) in self.0.iter().rev().zip(other.0.iter().rev()) {
            if a != b {
                return a > b;
            }
        }
        true
    }

    /// self -= other (other <= self).
    fn sub(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, word) in self.0.iter_mut().enumerate() {
            let o = i64::from(other.0.get(i).copied().unwrap_or(0));
            let mut d = i64::from(*word) - o - borrow;
            borrow = i64::from(d < 0);
            if d < 0 {
                d += 1 << 32;
            }
            *word = d as u32;
        }
        self.trim();
    }

    /// The quotient (under 2^57, as `magnitude` aligns the two) and whether a remainder is
    /// left, by shift and subtract.
    fn div_small_quotient(mut self, denominator: &Big) -> (u64, bool) {
        let mut quotient = 0u64;
        for bit in (0..57).rev() {
            let shifted = denominator.shl(bit);
            if self.at_least(&shifted) {
                self.sub(&shifted);
                quotient |= 1 << bit;
            }
        }
        (quotient, !self.0.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::parse_f64;

    fn check(text: &str) {
        let expected = text.parse::<f64>().ok().filter(|f| f.is_finite());
        assert_eq!(
            parse_f64(text).map(f64::to_bits),
            expected.map(f64::to_bits),
            "{text}"
        );
    }

    #[test]
    fn edge_cases_round_as_the_standard_library_does() {
        for text in [
            "0", "-0", "0.0", "1", "0.1", "0.30000000000000004", "9007199254740993",
            "9007199254740992", "9007199254740991", "1e22", "1e23", "-1e-22", "1.7976931348623157e308",
            "1.7976931348623158e308", "1.7976931348623159e308", "1e309", "2.2250738585072011e-308",
            "2.2250738585072014e-308", "4.9e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
            "5e-324", "1e-400", "-1e-400", "1e99999999999999999999", "-1e99999999999999999999",
            "1e-99999999999999999999", "0.0e99999999999999999999", "9223372036854775807e9223372036854775807", "123456789012345678901234567890", "0.000001",
            "2.225073858507201136057409796709131975934819546351645648023426109724822222021076945516529523908135087914149158913039621106870086438694594645527657207407820621743379988141063267329253552286881372149012981122451451889849057222307285255133155755015914397476397983411801999323962548289017107081850690630666655994938275772572015763062690663332647565300009245888316433037779791869612049497390377829704905051080609940730262937128958950003583799967207254304360284078895771796150945516748243471030702609144621572289880258182545180325707018860872113128079512233426288368622321503775666622503982534335974568884423900265498198385487948292206894721689831099698365846814022854243330660339850886445804001034933970427567186443383770486037861622771738545623065874679014086723327636718751234567890123456789e-308",
        ] {
            check(text);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 5000, ..Default::default() })]

        /// Every double, written shortest (as serde_json writes it) and with 17 and 25 digits.
        #[test]
        fn every_double_round_trips(bits in proptest::num::u64::ANY) {
            let f = f64::from_bits(bits);
            if f.is_finite() {
                check(&format!("{f:e}"));
                check(&format!("{f:.16e}"));
                check(&format!("{f:.24e}"));
            }
        }

        /// Decimal texts of random digits and exponents, near the ranges' edges too.
        #[test]
        fn random_decimals_round_correctly(
            digits in "[1-9][0-9]{0,40}",
            point in 0usize..40,
            exponent in -360i64..330,
        ) {
            let point = point.min(digits.len());
            let text = if point == 0 { format!("{digits}e{exponent}") } else {
                format!("{}.{}e{exponent}", &digits[..point], &digits[point..])
            };
            check(&text);
        }
    }
}
