//! How counts and rates read for people, the same in the command line's output and on
//! the dashboard: `1,234,567` and `19.1k`.

/// `1234567` as `1,234,567`.
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut text = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
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
}
