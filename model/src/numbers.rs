//! How counts, rates, shares and rarities read for people, the same in the command
//! line's output and on the dashboard: `1,234,567`, `19.1k`, `0.000028 %`, `1 in 3.6
//! billion`.

/// `1234567` as `1,234,567`.
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut text = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// A count or rate with a unit prefix: `950`, `19.1k`, `4.2M`, `1.0G`.
pub fn si(value: f64) -> String {
    match value {
        v if v >= 1e9 => format!("{:.1}G", v / 1e9),
        v if v >= 1e6 => format!("{:.1}M", v / 1e6),
        v if v >= 1e3 => format!("{:.1}k", v / 1e3),
        v => format!("{v:.0}"),
    }
}

/// `count` of `total` as a percentage with two significant digits at least, so that a
/// rare bin never reads as `0.00000 %`: `37.5 %`, `0.42 %`, `0.000028 %`, `0 %`.
pub fn percent(count: u64, total: u64) -> String {
    if count == 0 || total == 0 {
        return "0 %".into();
    }
    let share = count as f64 * 100.0 / total as f64;
    let decimals = match share {
        s if s >= 10.0 => 1,
        s => (1.0 - s.log10().floor()) as usize,
    };
    format!("{share:.decimals$} %")
}

/// "1 in N": how rare `count` of `total` are, in words past a million (`1 in 3.6
/// billion`); `-` for none.
pub fn rarity(count: u64, total: u64) -> String {
    if count == 0 {
        return "-".into();
    }
    let n = total as f64 / count as f64;
    match n {
        n if n < 10.0 => format!("1 in {n:.1}"),
        n if n < 1e6 => format!("1 in {}", thousands(n.round() as u64)),
        n if n < 1e9 => format!("1 in {:.1} million", n / 1e6),
        n => format!("1 in {:.1} billion", n / 1e9),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_and_rates_prefixed() {
        let grouped = [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (656239500, "656,239,500"),
        ];
        for (value, text) in grouped {
            assert_eq!(thousands(value), text);
        }
        let prefixed = [
            (950.4, "950"),
            (19_140.7, "19.1k"),
            (4.2e6, "4.2M"),
            (1.0e9, "1.0G"),
        ];
        for (value, text) in prefixed {
            assert_eq!(si(value), text);
        }
    }

    #[test]
    fn shares_keep_two_digits_and_rarities_read_in_words() {
        assert_eq!(percent(3, 8), "37.5 %");
        assert_eq!(percent(42, 10_000), "0.42 %");
        assert_eq!(percent(1, 3_609_317), "0.000028 %");
        assert_eq!(percent(0, 10), "0 %");
        assert_eq!(rarity(1, 3_609_317_250), "1 in 3.6 billion");
        assert_eq!(rarity(2, 5_000_000), "1 in 2.5 million");
        assert_eq!(rarity(1, 12_345), "1 in 12,345");
        assert_eq!(rarity(2, 3), "1 in 1.5");
        assert_eq!(rarity(0, 3), "-");
    }
}
