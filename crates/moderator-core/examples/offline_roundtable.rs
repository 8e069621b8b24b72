//! Plays the sample scenario offline (heuristic intents, canned utterances) and prints
//! the transcript with every decision: `cargo run -p moderator-core --example offline_roundtable`.

use moderator_core::roundtable::{Config, Output};
use moderator_core::{Roundtable, SAMPLE_SCENARIO, Scenario};

fn main() {
    let scenario = Scenario::from_yaml(SAMPLE_SCENARIO).expect("the sample scenario is valid");
    let config = Config {
        paced: false,
        max_unplayed: 1,
        playback_timeout_ms: 5_000,
    };
    let mut rt = Roundtable::new(scenario, config);
    let mut now = 0u64;
    let mut queue = rt.start(now);
    let mut turn = 0u32;
    while !rt.finished() || !queue.is_empty() {
        if queue.is_empty() {
            // Nobody answers intent requests: each agent's intent is the heuristic's.
            now = rt.next_wake().unwrap_or(now);
            queue = rt.tick(now);
            continue;
        }
        for output in std::mem::take(&mut queue) {
            now += 500;
            match output {
                Output::Decision(record) => println!("    [{record}]"),
                Output::Notice(notice) => println!("    ({notice})"),
                Output::Line { text, kind, .. } => {
                    println!("MODERATOR ({}): {text}", kind.as_str())
                }
                Output::Turn {
                    agent, question_id, ..
                } => {
                    turn += 1;
                    let text = format!(
                        "Point {turn}: {agent} thinks the centre needs fewer cars{}",
                        if turn.is_multiple_of(4) {
                            ", don't you agree, engineer?"
                        } else {
                            "."
                        }
                    );
                    println!("{agent}: {text}");
                    queue.extend(rt.on_text(&agent, Some(question_id), true, &text, None, now));
                }
                Output::Utterance { .. }
                | Output::Request(_)
                | Output::Status(_)
                | Output::Interrupt { .. }
                | Output::Floor(_) => {}
            }
        }
    }
    println!("== end after {} decisions ==", rt.decisions());
}
