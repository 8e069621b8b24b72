//! Nanoseconds per decision of the policy engine (select the next speaker, record its
//! words, end its turn), for 4 and 64 participants, plus the full controller core per
//! turn. Each figure is the median of 9 runs; compare figures within one run.

use std::{hint::black_box, time::Instant};

use conference_core::{Conference, ConferenceConfig, Input};
use turn_policy::{Policy, PolicyEngine, sim::default_words};
use voice_protocol::StreamStatus;

const RUNS: usize = 9;

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn engine_ns_per_decision(pattern: &str, decisions: u64) -> f64 {
    let policy = Policy::parse(pattern).expect("valid pattern");
    median(
        (0..RUNS)
            .map(|_| {
                let mut engine = PolicyEngine::new(policy.clone(), &[] as &[&str]);
                let start = Instant::now();
                for turn in 1..=decisions {
                    let speaker = engine.next_turn().expect("someone speaks");
                    engine.record_words(speaker, black_box(default_words(turn)));
                    engine.finish_turn();
                    black_box(speaker);
                }
                start.elapsed().as_nanos() as f64 / decisions as f64
            })
            .collect(),
    )
}

fn controller_ns_per_turn(pattern: &str, turns: u64) -> f64 {
    let policy = Policy::parse(pattern).expect("valid pattern");
    median(
        (0..RUNS)
            .map(|_| {
                let engine = PolicyEngine::new(policy.clone(), &[] as &[&str]);
                let mut conference = Conference::new(engine, ConferenceConfig::default());
                let now = 0;
                conference.handle(Input::Start, now);
                let start = Instant::now();
                for _ in 0..turns {
                    let (speaker, question_id) = conference
                        .current_turn()
                        .map(|(s, q)| (s.to_owned(), q))
                        .expect("a turn is active");
                    black_box(conference.handle(
                        Input::Text {
                            from: speaker,
                            text: "A short answer of some words.".to_owned(),
                            status: Some(StreamStatus::Ended),
                            question_id: Some(question_id),
                        },
                        now,
                    ));
                }
                start.elapsed().as_nanos() as f64 / turns as f64
            })
            .collect(),
    )
}

fn ratio_pattern(n: usize) -> String {
    let entries: Vec<String> = (0..n)
        .map(|i| match i {
            0 => "(chair, *)".to_owned(),
            _ => format!("(p{i}, {})", 1 + i % 3),
        })
        .collect();
    format!("[{}]", entries.join(", "))
}

fn sequential_pattern(n: usize) -> String {
    let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
    format!("[{}]", names.join(" → "))
}

fn main() {
    let study = "[(human, 0.001), (tutor, *), (student1, 1), (student2, 1)]";
    let rows = [
        (
            "engine, 4 participants, ratio/priority (Example 1)",
            engine_ns_per_decision(study, 2_000_000),
        ),
        (
            "engine, 4 participants, ratio (Example 3)",
            engine_ns_per_decision(
                "[(moderator, 3), (expert1, 2), (expert2, 2), (guest, 1)]",
                2_000_000,
            ),
        ),
        (
            "engine, 4 participants, sequential",
            engine_ns_per_decision(&sequential_pattern(4), 2_000_000),
        ),
        (
            "engine, 64 participants, ratio/priority",
            engine_ns_per_decision(&ratio_pattern(64), 500_000),
        ),
        (
            "engine, 64 participants, sequential",
            engine_ns_per_decision(&sequential_pattern(64), 500_000),
        ),
        (
            "controller core per turn, 4 participants (incl. stats)",
            controller_ns_per_turn(study, 200_000),
        ),
    ];
    for (name, ns) in rows {
        println!("{name:<58} {ns:>9.1} ns");
    }
}
