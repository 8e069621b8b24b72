//! The figures of a session, for the debrief (Markdown) and for `debrief.json`.

use std::collections::BTreeMap;
use std::fmt::Write;

use conversation_quality::answers::addresses;
use serde::{Deserialize, Serialize};
use text::words::words;

use crate::{Delivery, LONG_PAUSE_MS, Line, Part, speech};

/// Everything measured of how the presenter spoke.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeliveryReport {
    /// Time spent speaking (presenting and answering).
    pub speaking_ms: u64,
    pub words: usize,
    /// Over all speech; `None` before a word was heard.
    pub words_per_minute: Option<f64>,
    pub fillers: BTreeMap<String, usize>,
    pub fillers_per_minute: Option<f64>,
    pub hedges: BTreeMap<String, usize>,
    pub hedges_per_minute: Option<f64>,
    /// Silences of [`LONG_PAUSE_MS`] or more between two lines while presenting.
    pub long_pauses: Vec<Pause>,
    pub slides: Vec<SlideDelivery>,
    pub answers: Vec<AnswerDelivery>,
    /// Lines timed at the assumed pace (no voice onset was heard for them).
    pub estimated_lines: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pause {
    /// When the silence began (session time).
    pub at_ms: u64,
    pub ms: u64,
    pub slide: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlideDelivery {
    pub slide: usize,
    /// How long it was up, over every visit.
    pub shown_ms: u64,
    pub planned_ms: Option<u64>,
    pub speaking_ms: u64,
    pub words: usize,
    pub words_per_minute: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerDelivery {
    pub exchange: u64,
    pub asker: String,
    pub question: String,
    pub answer: String,
    pub speaking_ms: u64,
    pub words: usize,
    pub words_per_minute: Option<f64>,
    /// The answer shares a content word (by stem) with the question.
    pub takes_up_question: bool,
}

/// Per minute of `ms`, to one decimal; `None` for no time.
fn per_minute(count: usize, ms: u64) -> Option<f64> {
    (ms > 0).then(|| (count as f64 * 600_000.0 / ms as f64).round() / 10.0)
}

pub(crate) fn build(
    delivery: &Delivery,
    now_ms: u64,
    planned_ms: impl Fn(usize) -> Option<u64>,
) -> DeliveryReport {
    let lines = &delivery.lines;
    let spoken = |l: &Line| l.end_ms - l.start_ms;
    let speaking_ms: u64 = lines.iter().map(spoken).sum();
    let word_count: usize = lines.iter().map(|l| l.words).sum();
    let mut fillers = BTreeMap::new();
    let mut hedges = BTreeMap::new();
    for line in lines {
        let (f, h) = speech::count(&line.text);
        for (into, from) in [(&mut fillers, f), (&mut hedges, h)] {
            for (k, n) in from {
                *into.entry(k).or_insert(0) += n;
            }
        }
    }
    let long_pauses = lines
        .windows(2)
        .filter_map(|pair| match (&pair[0].part, &pair[1].part) {
            (Part::Presenting { .. }, Part::Presenting { slide }) if pair[1].follows => {
                let ms = pair[1].start_ms.saturating_sub(pair[0].end_ms);
                (ms >= LONG_PAUSE_MS).then_some(Pause {
                    at_ms: pair[0].end_ms,
                    ms,
                    slide: *slide,
                })
            }
            _ => None,
        })
        .collect();
    // Slides in the order first shown (or first spoken to, without a slide change).
    let mut order: Vec<usize> = Vec::new();
    let mut shown: BTreeMap<usize, u64> = BTreeMap::new();
    for (i, &(slide, since)) in delivery.shown.iter().enumerate() {
        let until = delivery.shown.get(i + 1).map_or(now_ms, |&(_, t)| t);
        *shown.entry(slide).or_insert(0) += until.saturating_sub(since);
        if !order.contains(&slide) {
            order.push(slide);
        }
    }
    for line in lines {
        if let Part::Presenting { slide } = line.part
            && !order.contains(&slide)
        {
            order.push(slide);
        }
    }
    let slides = order
        .into_iter()
        .map(|slide| {
            let on = || {
                lines
                    .iter()
                    .filter(move |l| l.part == Part::Presenting { slide })
            };
            let speaking_ms = on().map(spoken).sum();
            let words = on().map(|l| l.words).sum();
            SlideDelivery {
                slide,
                shown_ms: shown.get(&slide).copied().unwrap_or(0),
                planned_ms: planned_ms(slide),
                speaking_ms,
                words,
                words_per_minute: per_minute(words, speaking_ms),
            }
        })
        .collect();
    let mut answers: Vec<AnswerDelivery> = Vec::new();
    for line in lines {
        let Part::Answering {
            exchange,
            asker,
            question,
        } = &line.part
        else {
            continue;
        };
        let answer = match answers.iter_mut().find(|a| a.exchange == *exchange) {
            Some(a) => a,
            None => {
                answers.push(AnswerDelivery {
                    exchange: *exchange,
                    asker: asker.clone(),
                    question: question.clone(),
                    answer: String::new(),
                    speaking_ms: 0,
                    words: 0,
                    words_per_minute: None,
                    takes_up_question: false,
                });
                answers.last_mut().expect("just pushed")
            }
        };
        if !answer.answer.is_empty() {
            answer.answer.push(' ');
        }
        answer.answer.push_str(&line.text);
        answer.speaking_ms += spoken(line);
        answer.words += line.words;
    }
    for answer in &mut answers {
        answer.words_per_minute = per_minute(answer.words, answer.speaking_ms);
        answer.takes_up_question = addresses(&words(&answer.question), &words(&answer.answer));
    }
    let filler_count = fillers.values().sum();
    let hedge_count = hedges.values().sum();
    DeliveryReport {
        speaking_ms,
        words: word_count,
        words_per_minute: per_minute(word_count, speaking_ms),
        fillers,
        fillers_per_minute: per_minute(filler_count, speaking_ms),
        hedges,
        hedges_per_minute: per_minute(hedge_count, speaking_ms),
        long_pauses,
        slides,
        answers,
        estimated_lines: lines.iter().filter(|l| l.estimated).count(),
    }
}

fn clock(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}", s / 60, s % 60)
}

fn rate(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_owned(), |v| format!("{v:.0}"))
}

fn counts(found: &BTreeMap<String, usize>) -> String {
    let mut list: Vec<(&String, &usize)> = found.iter().collect();
    list.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    list.iter()
        .map(|(k, n)| format!("“{k}” {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl DeliveryReport {
    /// The debrief's section on delivery; `title` names a slide by its index.
    pub fn to_markdown(&self, title: impl Fn(usize) -> String) -> String {
        let mut out = String::from("## Delivery\n\n");
        if self.words == 0 {
            out.push_str("Nothing the presenter said was heard.\n");
            return out;
        }
        let _ = writeln!(
            out,
            "- Pace: {} words a minute ({} words in {} of speech).",
            rate(self.words_per_minute),
            self.words,
            clock(self.speaking_ms)
        );
        let per = |v: Option<f64>| v.map_or_else(|| "–".to_owned(), |v| format!("{v:.1}"));
        for (what, rate, found) in [
            ("Filler words", self.fillers_per_minute, &self.fillers),
            ("Hedges", self.hedges_per_minute, &self.hedges),
        ] {
            let listed = if found.is_empty() {
                String::new()
            } else {
                format!(" ({})", counts(found))
            };
            let _ = writeln!(out, "- {what}: {} a minute{listed}.", per(rate));
        }
        match self.long_pauses.iter().max_by_key(|p| p.ms) {
            Some(longest) => {
                let _ = writeln!(
                    out,
                    "- Pauses of {} s or more while presenting: {} (the longest {:.1} s, on “{}”).",
                    LONG_PAUSE_MS / 1000,
                    self.long_pauses.len(),
                    longest.ms as f64 / 1000.0,
                    title(longest.slide)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "- No pause of {} s or more while presenting.",
                    LONG_PAUSE_MS / 1000
                );
            }
        }
        if self.estimated_lines > 0 {
            let _ = writeln!(
                out,
                "- {} line(s) had no voice onset heard and are timed at {} words a minute.",
                self.estimated_lines,
                crate::ASSUMED_WORDS_PER_MINUTE
            );
        }
        if !self.slides.is_empty() {
            out.push_str("\n| slide | shown | planned | spoken | words | words/min |\n");
            out.push_str("|---|---:|---:|---:|---:|---:|\n");
            for s in &self.slides {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} |",
                    title(s.slide),
                    clock(s.shown_ms),
                    s.planned_ms.map_or_else(|| "–".to_owned(), clock),
                    clock(s.speaking_ms),
                    s.words,
                    rate(s.words_per_minute)
                );
            }
        }
        if !self.answers.is_empty() {
            out.push_str("\n| answer to | words | spoken | words/min | took up the question |\n");
            out.push_str("|---|---:|---:|---:|---|\n");
            for a in &self.answers {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} |",
                    a.asker,
                    a.words,
                    clock(a.speaking_ms),
                    rate(a.words_per_minute),
                    if a.takes_up_question { "yes" } else { "no" }
                );
            }
        }
        out
    }
}
