//! Plays the sample scenario offline (heuristic intents, canned utterances) and prints
//! the transcript with every decision: `cargo run -p moderator-core --example offline_roundtable`.

use moderator_core::{Action, Event, Roundtable, SAMPLE_SCENARIO, Scenario};

fn main() {
    let scenario = Scenario::from_yaml(SAMPLE_SCENARIO).expect("the sample scenario is valid");
    let mut rt = Roundtable::new(scenario);
    let mut now = 0u64;
    let mut queue = rt.handle(Event::Start, now);
    let mut turn = 0u32;
    while !rt.is_ended() || !queue.is_empty() {
        if queue.is_empty() {
            now = rt.next_deadline().unwrap_or(now);
            queue = rt.handle(Event::Tick, now);
            continue;
        }
        for action in std::mem::take(&mut queue) {
            now += 500;
            match action {
                Action::Decision(d) => println!(
                    "    [{:?} {} — {}]",
                    d.action,
                    d.target.as_deref().unwrap_or("-"),
                    d.reason
                ),
                Action::ModeratorSay { text, kind, .. } => {
                    println!("MODERATOR ({}): {text}", kind.as_str())
                }
                Action::PhaseChanged { from, to, .. } => println!("== {from} → {to} =="),
                Action::CollectIntents { question_id, .. } => {
                    for intent in rt.heuristic_intents() {
                        queue.extend(rt.handle(
                            Event::IntentReceived {
                                question_id,
                                intent,
                            },
                            now,
                        ));
                    }
                }
                Action::GiveFloor {
                    agent,
                    question_id,
                    is_interrupt,
                    ..
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
                    let cut = if is_interrupt { " (cutting in)" } else { "" };
                    println!("{agent}{cut}: {text}");
                    queue.extend(rt.handle(
                        Event::UtteranceFinished {
                            speaker: agent,
                            question_id: Some(question_id),
                            text,
                        },
                        now,
                    ));
                }
                Action::End => println!("== end after {} decisions ==", rt.decisions()),
            }
        }
    }
}
