//! Voices: a style vector table per packaged voice, blends of them, and a speed.
//!
//! A voice is written `jf_alpha`, `jf_alpha*0.7+jm_kumo*0.3` (a linear blend; weights are
//! scaled to sum to one) or either with a speed, `jm_kumo@1.1`; a `kokoro:` prefix is
//! allowed. A table holds one 256-value style row per input length, the row for `n`
//! tokens being the one the model is given.

use std::collections::BTreeMap;

/// Values in one style row.
pub const STYLE_WIDTH: usize = 256;

/// The slowest and fastest speeds a voice may ask for.
pub const SPEEDS: std::ops::RangeInclusive<f32> = 0.5..=2.0;

/// A voice that could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VoiceSpecError {
    #[error("voice {0:?} names no packaged voice")]
    Empty(String),
    #[error("voice {spec:?}: weight {weight:?} is not a positive number")]
    Weight { spec: String, weight: String },
    #[error("voice {spec:?}: speed {speed:?} is not a number from 0.5 to 2")]
    Speed { spec: String, speed: String },
    #[error("voice {spec:?}: {name:?} is not a voice name (letters, digits and `_`)")]
    Name { spec: String, name: String },
}

/// A voice as written in `VOICE_MAP`: packaged voices with weights, and a speed.
#[derive(Debug, Clone, PartialEq)]
pub struct VoiceSpec {
    /// Packaged voices and their weights, scaled to sum to one.
    pub parts: Vec<(String, f32)>,
    pub speed: f32,
}

impl VoiceSpec {
    pub fn parse(spec: &str) -> Result<Self, VoiceSpecError> {
        let text = spec.trim();
        let text = text.strip_prefix("kokoro:").unwrap_or(text).trim();
        let (mix, speed) = match text.rsplit_once('@') {
            Some((mix, speed)) => {
                let parsed = speed
                    .trim()
                    .parse::<f32>()
                    .ok()
                    .filter(|s| SPEEDS.contains(s))
                    .ok_or_else(|| VoiceSpecError::Speed {
                        spec: spec.to_owned(),
                        speed: speed.trim().to_owned(),
                    })?;
                (mix, parsed)
            }
            None => (text, 1.0),
        };
        let mut parts = Vec::new();
        for part in mix.split('+').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, weight) = match part.split_once('*') {
                Some((name, weight)) => {
                    let parsed = weight
                        .trim()
                        .parse::<f32>()
                        .ok()
                        .filter(|w| w.is_finite() && *w > 0.0)
                        .ok_or_else(|| VoiceSpecError::Weight {
                            spec: spec.to_owned(),
                            weight: weight.trim().to_owned(),
                        })?;
                    (name.trim(), parsed)
                }
                None => (part, 1.0),
            };
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(VoiceSpecError::Name {
                    spec: spec.to_owned(),
                    name: name.to_owned(),
                });
            }
            parts.push((name.to_owned(), weight));
        }
        if parts.is_empty() {
            return Err(VoiceSpecError::Empty(spec.to_owned()));
        }
        let total: f32 = parts.iter().map(|(_, w)| w).sum();
        for (_, w) in &mut parts {
            *w /= total;
        }
        Ok(Self { parts, speed })
    }
}

/// A style table or blend that does not fit.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StyleError {
    #[error("voice {name:?} has {len} values, not rows of {STYLE_WIDTH}")]
    Shape { name: String, len: usize },
    #[error("voice {name:?} is not among the packaged voices ({known})")]
    Unknown { name: String, known: String },
}

/// The packaged voices' style tables, by name.
#[derive(Debug, Clone, Default)]
pub struct StyleBank {
    tables: BTreeMap<String, Vec<f32>>,
}

impl StyleBank {
    /// Adds a voice's table: rows of [`STYLE_WIDTH`] values, one per input length.
    pub fn insert(&mut self, name: &str, values: Vec<f32>) -> Result<(), StyleError> {
        if values.is_empty() || !values.len().is_multiple_of(STYLE_WIDTH) {
            return Err(StyleError::Shape {
                name: name.to_owned(),
                len: values.len(),
            });
        }
        self.tables.insert(name.to_owned(), values);
        Ok(())
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tables.keys().map(String::as_str)
    }

    /// The table of `spec`'s blend, checked against the packaged voices.
    pub fn blend(&self, spec: &VoiceSpec) -> Result<Vec<f32>, StyleError> {
        let mut tables = Vec::with_capacity(spec.parts.len());
        for (name, weight) in &spec.parts {
            let table = self.tables.get(name).ok_or_else(|| StyleError::Unknown {
                name: name.clone(),
                known: self.names().collect::<Vec<_>>().join(", "),
            })?;
            tables.push((table, *weight));
        }
        let rows = tables.iter().map(|(t, _)| t.len()).min().unwrap_or(0);
        let mut out = vec![0.0; rows];
        for (table, weight) in tables {
            for (o, v) in out.iter_mut().zip(table) {
                *o += v * weight;
            }
        }
        Ok(out)
    }
}

/// The style row for an input of `tokens` tokens (the last row for longer inputs).
pub fn style_row(table: &[f32], tokens: usize) -> &[f32] {
    let rows = table.len() / STYLE_WIDTH;
    let row = tokens.min(rows.saturating_sub(1));
    &table[row * STYLE_WIDTH..(row + 1) * STYLE_WIDTH]
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn voices_blends_and_speeds_are_read() {
        let plain = VoiceSpec::parse("jf_alpha").unwrap();
        assert_eq!(plain.parts, [("jf_alpha".to_owned(), 1.0)]);
        assert_eq!(plain.speed, 1.0);
        let blend = VoiceSpec::parse(" kokoro:jf_alpha*3 + jm_kumo*1 @1.1 ").unwrap();
        assert_eq!(
            blend.parts,
            [("jf_alpha".to_owned(), 0.75), ("jm_kumo".to_owned(), 0.25)]
        );
        assert_eq!(blend.speed, 1.1);
        assert!(matches!(
            VoiceSpec::parse(""),
            Err(VoiceSpecError::Empty(_))
        ));
        assert!(matches!(
            VoiceSpec::parse("a*-1"),
            Err(VoiceSpecError::Weight { .. })
        ));
        assert!(matches!(
            VoiceSpec::parse("a@9"),
            Err(VoiceSpecError::Speed { .. })
        ));
        assert!(matches!(
            VoiceSpec::parse("en-us+f3"),
            Err(VoiceSpecError::Name { .. })
        ));
    }

    fn bank() -> StyleBank {
        let mut bank = StyleBank::default();
        bank.insert("a", vec![1.0; STYLE_WIDTH * 3]).unwrap();
        let b: Vec<f32> = (0..STYLE_WIDTH * 3)
            .map(|i| (i / STYLE_WIDTH) as f32)
            .collect();
        bank.insert("b", b).unwrap();
        bank
    }

    #[test]
    fn blends_mix_rows_linearly() {
        let table = bank()
            .blend(&VoiceSpec::parse("a*0.5+b*0.5").unwrap())
            .unwrap();
        assert_eq!(style_row(&table, 0)[0], 0.5);
        assert_eq!(style_row(&table, 2)[0], 1.5);
        // Past the table, the last row.
        assert_eq!(style_row(&table, 700)[7], 1.5);
        assert!(matches!(
            bank().blend(&VoiceSpec::parse("c").unwrap()),
            Err(StyleError::Unknown { .. })
        ));
        assert!(StyleBank::default().insert("x", vec![0.0; 10]).is_err());
    }

    proptest! {
        /// A blend's weights sum to one, whatever was written.
        #[test]
        fn weights_sum_to_one(weights in proptest::collection::vec(0.01f32..100.0, 1..5)) {
            let spec = weights
                .iter()
                .enumerate()
                .map(|(i, w)| format!("v{i}*{w}"))
                .collect::<Vec<_>>()
                .join("+");
            let parsed = VoiceSpec::parse(&spec).unwrap();
            let total: f32 = parsed.parts.iter().map(|(_, w)| w).sum();
            prop_assert!((total - 1.0).abs() < 1e-4);
        }

        /// Parsing never panics, and what parses has a valid speed and names.
        #[test]
        fn parsing_is_total(spec in ".{0,40}") {
            if let Ok(parsed) = VoiceSpec::parse(&spec) {
                prop_assert!(SPEEDS.contains(&parsed.speed));
                prop_assert!(!parsed.parts.is_empty());
            }
        }
    }
}
