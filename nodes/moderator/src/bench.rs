//! `moderator --bench [SESSIONS]`: the moderator's decision time, without dora.
//!
//! Plays whole roundtables of the sample scenario (three agents, five phases) through the
//! node's [`Roundtable`]: every agent answers every intent request with a valid JSON
//! intent or an error (the heuristic decides), finishes every turn with a two-chunk
//! utterance, and the player reports every line. Reports the time per decision (each
//! decision includes the events that led to it: replies, chunks, playback reports), the
//! median of 9 runs.

use std::time::Instant;

use moderator_core::{SAMPLE_SCENARIO, Scenario};

use moderator_core::Roundtable;
use moderator_core::roundtable::{Config, Output};

pub fn run(sessions: usize) -> eyre::Result<()> {
    let scenario = Scenario::from_yaml(SAMPLE_SCENARIO).map_err(|e| eyre::eyre!("{e}"))?;
    let mut per_decision = Vec::new();
    let mut decisions_per_session = 0;
    for _ in 0..9 {
        let start = Instant::now();
        let mut decisions = 0usize;
        for s in 0..sessions {
            decisions += play(&scenario, s);
        }
        let elapsed = start.elapsed();
        decisions_per_session = decisions / sessions.max(1);
        per_decision.push(elapsed.as_nanos() as f64 / decisions.max(1) as f64);
    }
    per_decision.sort_by(f64::total_cmp);
    println!(
        "moderator decision (sample scenario, 3 agents, {decisions_per_session} decisions per session, {sessions} sessions): median {:.2} µs, min {:.2} µs per decision",
        per_decision[per_decision.len() / 2] / 1000.0,
        per_decision[0] / 1000.0
    );
    Ok(())
}

/// One session; returns its decision count.
fn play(scenario: &Scenario, seed: usize) -> usize {
    let mut c = Roundtable::new(
        scenario.clone(),
        Config {
            paced: true,
            max_unplayed: 1,
            playback_timeout_ms: 30_000,
        },
    );
    let mut now = 0u64;
    let mut decisions = 0;
    let mut queue = c.start(now);
    let mut turn = 0usize;
    while !c.finished() {
        if queue.is_empty() {
            now = c.next_wake().unwrap_or(now).max(now);
            queue = c.tick(now);
            continue;
        }
        let mut next = Vec::new();
        for out in std::mem::take(&mut queue) {
            now += 1;
            match out {
                Output::Decision(_) => decisions += 1,
                Output::Line { question_id, .. } => next.extend(c.on_played(question_id, now)),
                Output::Request(request) => {
                    let id = request.id;
                    for (i, agent) in ["economist", "engineer", "ethicist"].iter().enumerate() {
                        let answer = match (seed + turn + i) % 3 {
                            0 => r#"{"intent":"speak","urgency":3}"#,
                            1 => r#"{"intent":"pass"}"#,
                            _ => "",
                        };
                        let error = answer.is_empty().then_some("offline");
                        next.extend(c.on_reply(
                            &format!("reply_{agent}"),
                            Some(agent),
                            Some(&id),
                            answer,
                            error,
                            now,
                        ));
                    }
                }
                Output::Turn {
                    agent, question_id, ..
                } => {
                    turn += 1;
                    next.extend(c.on_text(
                        &agent,
                        Some(question_id),
                        false,
                        "Congestion charges paid for the tram extension in two years, ",
                        None,
                        now,
                    ));
                    let end = if turn.is_multiple_of(4) {
                        "don't you agree, engineer?"
                    } else {
                        "and the shops did not lose customers."
                    };
                    next.extend(c.on_text(&agent, Some(question_id), true, end, None, now));
                    next.extend(c.on_played(question_id, now));
                }
                Output::Utterance { .. }
                | Output::Status(_)
                | Output::Notice(_)
                | Output::Interrupt { .. }
                | Output::Floor(_) => {}
            }
        }
        queue = next;
    }
    decisions
}
