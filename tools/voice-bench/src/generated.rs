//! `voice-bench generated LOG...`: where a session's model time went, turn by turn, from
//! the `generated` log lines of the model host (or of `local` bridges): the time from a
//! request to its first words, the prompt tokens read at a turn's start and those kept,
//! the refused sentences and the attempts.

use std::{collections::BTreeMap, path::Path};

use super::percentile;

/// One `generated` line's fields (`key=value`, values unquoted).
pub fn fields(line: &str) -> Option<BTreeMap<String, String>> {
    let line = strip_ansi(line);
    let at = line
        .find(" generated ")
        .or_else(|| line.strip_suffix(" generated").map(str::len))?;
    let mut fields = BTreeMap::new();
    for word in line[at..].split_whitespace() {
        if let Some((key, value)) = word.split_once('=') {
            fields.insert(key.to_owned(), value.trim_matches('"').to_owned());
        }
    }
    fields.contains_key("question_id").then_some(fields)
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

pub fn generated(logs: &[String]) -> std::io::Result<()> {
    let mut turns = Vec::new();
    for log in logs {
        let text = std::fs::read_to_string(Path::new(log))?;
        turns.extend(text.lines().filter_map(fields));
    }
    // Side requests (question 0) are not turns a listener waits for.
    let spoken: Vec<&BTreeMap<String, String>> =
        turns.iter().filter(|t| t["question_id"] != "0").collect();
    let number = |t: &BTreeMap<String, String>, key: &str| {
        t.get(key)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    let mut first: Vec<f64> = spoken
        .iter()
        .filter(|t| number(t, "first_text_ms") > 0.0)
        .map(|t| number(t, "first_text_ms"))
        .collect();
    // A turn's first attempt is what its start read.
    let starts: Vec<&&BTreeMap<String, String>> = spoken
        .iter()
        .filter(|t| t.get("attempt").is_none_or(|a| a == "0"))
        .collect();
    let mut read: Vec<f64> = starts
        .iter()
        .map(|t| {
            t.get("read_tokens")
                .and_then(|v| v.parse().ok())
                .unwrap_or(number(t, "prompt_tokens") - number(t, "reused_tokens"))
        })
        .collect();
    let mut kept: Vec<f64> = starts.iter().map(|t| number(t, "reused_tokens")).collect();
    let refused: f64 = spoken.iter().map(|t| number(t, "refused")).sum();
    let attempts = spoken.len();
    println!(
        "{} attempts at {} turns (+{} side requests): request → first words p50 {:.0} ms, p90 {:.0} ms, max {:.0} ms",
        attempts,
        starts.len(),
        turns.len() - spoken.len(),
        percentile(&mut first.clone(), 0.5),
        percentile(&mut first.clone(), 0.9),
        percentile(&mut first, 1.0),
    );
    println!(
        "tokens read at a turn's start: p50 {:.0}, p90 {:.0}, max {:.0}; kept from the cache p50 {:.0}",
        percentile(&mut read.clone(), 0.5),
        percentile(&mut read.clone(), 0.9),
        percentile(&mut read, 1.0),
        percentile(&mut kept, 0.5),
    );
    println!(
        "refused sentences: {:.0} ({:.2} per turn); attempts beyond the first: {}",
        refused,
        refused / starts.len().max(1) as f64,
        attempts - starts.len()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_line_reads_back_its_fields() {
        let line = "\u{1b}[2m2026-11-27T14:56:53Z\u{1b}[0m INFO generated participant=tutor question_id=3 priority=\"answer\" read_tokens=41 first_text_ms=640 refused=1";
        let f = fields(line).unwrap();
        assert_eq!(f["participant"], "tutor");
        assert_eq!(f["read_tokens"], "41");
        assert_eq!(f["priority"], "answer");
        assert!(fields("INFO generating question_id=3").is_none());
    }
}
