//! The roundtable as its node runs it (inputs in, outputs out), and its rounds on their
//! own: intents handed in directly, without the heuristic fallback or pacing in front.

use super::*;
use crate::*;

const SCENARIO: &str = "
topic: Should cities ban cars?
agents:
  - id: a
  - id: b
moderator:
  intent_timeout_ms: 1000
  idle_pause_ms: 0
phases:
  - type: opening
    max_rounds: 2
  - type: free_discussion
    max_rounds: 2
  - type: closing
    max_rounds: 2
";

#[test]
fn the_common_interface_plays_a_whole_session() {
    // Every agent answers its turn at once; intents are left to their fallback.
    let mut c = conductor(false);
    let mut now = 0;
    let mut pending = c.start(now);
    let mut steps = 0;
    while !c.finished() {
        steps += 1;
        assert!(steps < 500, "the session does not end");
        let inputs: Vec<(u64, Input)> = turn(&pending)
            .map(|(agent, q)| {
                (
                    now + 10,
                    Input::Text {
                        input: agent,
                        question_id: Some(q),
                        ends: true,
                        text: "I think so, b.".into(),
                        error: None,
                    },
                )
            })
            .into_iter()
            .collect();
        now += 10;
        let until = ::conductor::Core::next_wake(&c).unwrap_or(now).max(now);
        pending = ::conductor::drive(&mut c, inputs, until)
            .into_iter()
            .map(|(_, o)| o)
            .collect();
        now = until;
    }
}

#[test]
fn a_restarted_bridge_ends_its_turn_at_once_with_what_it_had_said() {
    let mut c = conductor(false);
    let (agent, q) = turn(&c.start(0)).expect("a first turn");
    let other = if agent == "a" { "b" } else { "a" };
    c.on_text(&agent, Some(q), false, "Cars are", None, 10);
    assert!(
        quiet(&c.on_restarted(other, 20)),
        "not the speaker's bridge"
    );
    let out = ::conductor::Core::handle(
        &mut c,
        Input::Restarted {
            input: agent.clone(),
        },
        30,
    );
    assert!(
        out.iter().any(|o| matches!(o, Output::Utterance { question_id, text, .. } if *question_id == q && text == "Cars are")),
        "{out:#?}"
    );
    // The next turn comes from the roundtable's own pacing, not the speech timeout.
    let mut now = 30;
    let mut next = turn(&out);
    while next.is_none() {
        now = ::conductor::Core::next_wake(&c)
            .expect("a wake-up")
            .max(now);
        assert!(now < 30 + 90_000, "waited for the speech timeout");
        next = turn(&c.tick(now));
    }
    let next = next.unwrap();
    assert!(next.1 > q, "{next:?}");
    // The lost turn is over: its bridge restarting again changes nothing.
    if next.0 != agent {
        assert!(quiet(&c.on_restarted(&agent, now + 1)));
    }
}

fn conductor(paced: bool) -> Roundtable {
    Roundtable::new(
        Scenario::from_yaml(SCENARIO).unwrap(),
        Config {
            paced,
            max_unplayed: 1,
            playback_timeout_ms: 5_000,
        },
    )
}

fn turn(out: &[Output]) -> Option<(String, u64)> {
    out.iter().find_map(|o| match o {
        Output::Turn {
            agent, question_id, ..
        } => Some((agent.clone(), *question_id)),
        _ => None,
    })
}

fn lines(out: &[Output]) -> Vec<(u64, LineKind)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Line {
                question_id, kind, ..
            } => Some((*question_id, *kind)),
            _ => None,
        })
        .collect()
}

/// Plays a whole session: agents answer every turn at once, intents fall back.
fn play(c: &mut Roundtable, paced: bool) -> Vec<Output> {
    play_answering(c, paced, |_, _, _| Vec::new())
}

/// [`play`], with `answer` given every intent request as it goes out.
fn play_answering(
    c: &mut Roundtable,
    paced: bool,
    mut answer: impl FnMut(&mut Roundtable, &SideRequest, u64) -> Vec<Output>,
) -> Vec<Output> {
    let mut now = 0;
    let mut all = c.start(now);
    let mut pending = all.clone();
    let mut steps = 0;
    while !c.finished() {
        steps += 1;
        assert!(steps < 500, "the session does not end");
        now += 10;
        let mut next = Vec::new();
        if paced {
            for (q, _) in lines(&pending) {
                next.extend(c.on_played(q, now));
            }
        }
        for output in &pending {
            if let Output::Request(request) = output {
                next.extend(answer(c, request, now));
            }
        }
        if let Some((agent, q)) = turn(&pending) {
            next.extend(c.on_text(&agent, Some(q), true, "I think so, b.", None, now));
            if paced {
                next.extend(c.on_played(q, now));
            }
        }
        if next.is_empty() && !c.finished() {
            now = c
                .next_wake()
                .unwrap_or_else(|| panic!("no wake-up (paced {paced}): {all:#?}"))
                .max(now);
            next = c.tick(now);
        }
        all.extend(next.clone());
        pending = next;
    }
    all
}

#[test]
fn a_session_runs_through_every_phase_and_ends_with_the_closing_line() {
    for paced in [false, true] {
        let mut c = conductor(paced);
        let all = play(&mut c, paced);
        let kinds: Vec<LineKind> = all
            .iter()
            .filter_map(|o| match o {
                Output::Line { kind, .. } => Some(*kind),
                _ => None,
            })
            .collect();
        assert_eq!(kinds.first(), Some(&LineKind::Opening));
        assert_eq!(kinds.last(), Some(&LineKind::Closing));
        assert!(kinds.contains(&LineKind::Summary), "{kinds:?}");
        let phases: std::collections::BTreeSet<String> = all
            .iter()
            .filter_map(|o| match o {
                Output::Decision(d) => Some([Some(d.phase.clone()), d.next_phase.clone()]),
                _ => None,
            })
            .flatten()
            .flatten()
            .collect();
        for p in ["opening", "free_discussion", "closing", "ended"] {
            assert!(phases.contains(p), "{p} missing from {phases:?}");
        }
        // Question ids of turns and lines only grow.
        let ids: Vec<u64> = all
            .iter()
            .filter_map(|o| match o {
                Output::Line { question_id, .. } | Output::Turn { question_id, .. } => {
                    Some(*question_id)
                }
                _ => None,
            })
            .collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    }
}

#[test]
fn a_finished_utterance_waits_for_older_lines_to_be_heard() {
    let mut c = conductor(true);
    let out = c.start(0);
    let (agent, q) = turn(&out).unwrap();
    // Opening and call lines are still unheard: the next decision waits.
    let out = c.on_text(&agent, Some(q), true, "Cars out.", None, 10);
    assert!(turn(&out).is_none() && lines(&out).is_empty(), "{out:?}");
    assert!(
        out.iter()
            .any(|o| matches!(o, Output::Utterance { speaker, .. } if speaker == "a"))
    );
    // The player reports the moderator's lines: the next turn goes out, while the
    // agent's own utterance may still be unheard.
    let out = c.on_played(q - 1, 20);
    assert_eq!(turn(&out).map(|(a, _)| a), Some("b".to_owned()), "{out:?}");
}

#[test]
fn no_playback_report_does_not_stall_the_conversation() {
    let mut c = conductor(true);
    let out = c.start(0);
    let (agent, q) = turn(&out).unwrap();
    assert!(
        c.on_text(&agent, Some(q), true, "Cars out.", None, 10)
            .iter()
            .all(|o| !matches!(o, Output::Turn { .. }))
    );
    let wake = c.next_wake().unwrap();
    assert!(wake <= 10 + 5_000);
    let out = c.tick(wake);
    assert!(turn(&out).is_some(), "{out:?}");
}

#[test]
fn intents_parse_strictly_and_fall_back_to_the_heuristic() {
    let mut c = conductor(false);
    let mut now = 0;
    let mut out = c.start(now);
    // Opening: two round-robin turns.
    for _ in 0..2 {
        let (agent, q) = turn(&out).unwrap();
        now += 10;
        out = c.on_text(&agent, Some(q), true, "A point.", None, now);
    }
    let request = out
        .iter()
        .find_map(|o| match o {
            Output::Request(request) => Some(request.clone()),
            _ => None,
        })
        .expect("free discussion asks for intents");
    assert!(request.json);
    assert!(request.prompt.contains("\"intent\""));
    let id = request.id.clone();
    // A stale reply, an unknown agent, then `a` passes and `b` rambles.
    assert!(quiet(&c.on_reply(
        "reply_a",
        None,
        Some("intent-0"),
        "{\"intent\":\"speak\",\"urgency\":5}",
        None,
        now
    )));
    assert!(quiet(&c.on_reply(
        "reply_x",
        Some("x"),
        Some(&id),
        "{}",
        None,
        now
    )));
    assert!(quiet(&c.on_reply(
        "reply_a",
        None,
        Some(&id),
        "{\"intent\":\"pass\"}",
        None,
        now
    )));
    let out = c.on_reply(
        "reply_b",
        Some("b"),
        Some(&id),
        "Sure, I'd love to!",
        None,
        now,
    );
    // b's heuristic: it did not speak last, so it asks for the floor.
    assert_eq!(turn(&out).map(|(a, _)| a), Some("b".to_owned()), "{out:?}");
}

#[test]
fn missing_intents_fall_back_at_the_reply_deadline() {
    let mut c = conductor(false);
    let mut now = 0;
    let mut out = c.start(now);
    for _ in 0..2 {
        let (agent, q) = turn(&out).unwrap();
        now += 10;
        out = c.on_text(&agent, Some(q), true, "A point.", None, now);
    }
    assert!(turn(&out).is_none());
    // The agents are asked for as long as the heuristic waits, no longer.
    let asked = out
        .iter()
        .find_map(|o| match o {
            Output::Request(r) => Some(r.within_ms),
            _ => None,
        })
        .expect("an intent request");
    assert_eq!(asked, Some(750));
    let wake = c.next_wake().unwrap();
    assert_eq!(wake, now + 750, "before the round's own deadline");
    let out = c.tick(wake);
    assert!(
        turn(&out).is_some(),
        "the heuristic picked a speaker: {out:?}"
    );
}

/// The session played to its end with every turn answered at once; intents answered
/// only in the rounds `answer_in` names (by their order, from 0). The `within_ms` of each
/// intent request, in order.
fn intent_waits(answer_in: &[usize]) -> Vec<u64> {
    let long_discussion = SCENARIO.replace(
        "free_discussion\n    max_rounds: 2",
        "free_discussion\n    max_rounds: 6",
    );
    let mut c = unpaced(Scenario::from_yaml(&long_discussion).unwrap());
    let mut round = 0;
    let all = play_answering(&mut c, false, |c, request, now| {
        let mut out = Vec::new();
        if answer_in.contains(&round) {
            for agent in ["a", "b"] {
                let answer = "{\"intent\":\"speak\",\"urgency\":3}";
                out.extend(c.on_reply(agent, Some(agent), Some(&request.id), answer, None, now));
            }
        }
        round += 1;
        out
    });
    all.iter()
        .filter_map(|o| match o {
            Output::Request(request) => Some(request.within_ms.expect("a wait")),
            _ => None,
        })
        .collect()
}

#[test]
fn rounds_wait_less_for_intents_that_never_come_until_one_does() {
    // No answer ever: two rounds wait the whole window (750 of 1000 ms), the rest a quarter.
    let silent = intent_waits(&[]);
    assert!(silent.len() >= 4, "{silent:?}");
    assert_eq!(silent[..2], [750, 750]);
    assert!(silent[2..].iter().all(|&w| w == 188), "{silent:?}");
    // An answer in the third round brings the whole window back for the next ones.
    let answered = intent_waits(&[2]);
    assert_eq!(answered[..4], [750, 750, 188, 750], "{answered:?}");
}

#[test]
fn chunks_of_others_and_stale_turns_are_dropped() {
    let mut c = conductor(false);
    let out = c.start(0);
    let (agent, q) = turn(&out).unwrap();
    assert!(quiet(&c.on_text("b", Some(q), true, "Me!", None, 1)));
    assert!(quiet(&c.on_text(
        &agent,
        Some(q - 1),
        true,
        "Old.",
        None,
        1
    )));
    assert!(quiet(&c.on_text(&agent, None, true, "No id.", None, 1)));
    assert_eq!(
        c.on_text(&agent, None, true, "No id.", None, 1),
        [Output::Notice(Notice::NoQuestionId {
            input: agent.clone()
        })]
    );
    assert!(quiet(&c.on_text("stranger", Some(q), true, "Hi.", None, 1)));
    assert!(quiet(&c.on_text(&agent, Some(q), false, "Cars ", None, 2)));
    let out = c.on_text(&agent, Some(q), true, "out.", None, 3);
    assert!(out.contains(&Output::Utterance {
        speaker: agent.clone(),
        question_id: q,
        text: "Cars out.".into(),
        human: false,
        heard: None,
    }));
}

#[test]
fn stop_ends_with_the_closing_line_and_stats_report() {
    let mut c = conductor(true);
    c.start(0);
    let status = match &c.on_control("{\"command\":\"STATS\"}", 1)[..] {
        [Output::Status(status)] => status.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(status.phase, "opening");
    assert_eq!(status.current_speaker.as_deref(), Some("a"));
    assert!(quiet(&c.on_control("dance", 1)));
    assert!(matches!(
        &c.on_control("dance", 1)[..],
        [Output::Notice(Notice::UnknownCommand { command })] if command == "dance"
    ));
    let out = c.on_control("stop", 2);
    let (closing, kind) = *lines(&out).last().unwrap();
    assert_eq!(kind, LineKind::Closing);
    assert!(!c.finished(), "waits for the closing line to be heard");
    c.on_played(closing - 1, 3);
    assert!(!c.finished());
    c.on_played(closing, 4);
    assert!(c.finished());
}

#[test]
fn a_turn_carries_the_moderators_call_as_its_instruction() {
    let mut c = conductor(false);
    let out = c.start(0);
    let instruction = out
        .iter()
        .find_map(|o| match o {
            Output::Turn { instruction, .. } => instruction.clone(),
            _ => None,
        })
        .unwrap();
    assert!(
        instruction.starts_with("The moderator said: A, would you start us off?"),
        "{instruction}"
    );
    assert!(
        instruction.contains("Should cities ban cars?"),
        "{instruction}"
    );
}

#[test]
fn the_wait_for_the_closing_line_is_bounded() {
    let mut c = conductor(true);
    c.start(0);
    c.on_control("stop", 2);
    assert!(!c.finished());
    let wake = c.next_wake().unwrap();
    c.tick(wake);
    assert!(c.finished());
}

// ----- the rounds on their own ------------------------------------------------------------

fn unpaced(scenario: Scenario) -> Roundtable {
    Roundtable::new(
        scenario,
        Config {
            paced: false,
            max_unplayed: 1,
            playback_timeout_ms: 5_000,
        },
    )
}

fn intent(rt: &mut Roundtable, question_id: u64, intent: Intent, now: u64) -> Vec<Output> {
    let mut out = Vec::new();
    rt.take_intent(question_id, intent, now, &mut out);
    out
}

fn spoke(
    rt: &mut Roundtable,
    speaker: &str,
    question_id: Option<u64>,
    text: &str,
    now: u64,
) -> Vec<Output> {
    let mut out = Vec::new();
    rt.finish_turn(speaker, question_id, text.to_owned(), now, &mut out);
    out
}

fn round_tick(rt: &mut Roundtable, now: u64) -> Vec<Output> {
    let mut out = Vec::new();
    rt.check_deadlines(now, &mut out);
    out
}

fn stop(rt: &mut Roundtable, now: u64) -> Vec<Output> {
    let mut out = Vec::new();
    rt.stop_rounds(now, &mut out);
    out
}

fn says(out: &[Output]) -> Vec<(LineKind, String)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Line { kind, text, .. } => Some((*kind, text.clone())),
            _ => None,
        })
        .collect()
}

fn floor(out: &[Output]) -> Option<(String, u64)> {
    turn(out)
}

/// The round whose intents were asked for.
fn collect(out: &[Output]) -> Option<u64> {
    out.iter().find_map(|o| match o {
        Output::Request(request) => request.id.strip_prefix("intent-")?.parse().ok(),
        _ => None,
    })
}

/// `(from, to, is_rollback)` of every decision that changed the phase.
fn phase_changes(out: &[Output]) -> Vec<(Phase, Phase, bool)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Decision(d) => {
                let to: Phase = serde_json::from_value(d.next_phase.clone()?.into()).unwrap();
                let from: Phase = serde_json::from_value(d.phase.clone().into()).unwrap();
                Some((from, to, d.is_rollback))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn start_opens_and_calls_the_first_agent() {
    let mut rt = unpaced(Scenario::from_yaml(SAMPLE_SCENARIO).unwrap());
    assert_eq!(rt.round_deadline(), None);
    let out = rt.start(0);
    let lines = says(&out);
    assert_eq!(lines[0].0, LineKind::Opening);
    assert!(
        lines[0].1.contains(
            "Our question today: Should cities ban private cars from their centres? Let's"
        )
    );
    assert!(
        lines[0]
            .1
            .contains("the economist, the engineer and the ethicist")
    );
    assert!(lines[0].1.contains("I'm Alex"));
    assert_eq!(lines[1].0, LineKind::Call);
    assert!(phase_changes(&out).contains(&(Phase::NotStarted, Phase::Opening, false)));
    let (agent, qid) = floor(&out).unwrap();
    assert_eq!(agent, "economist");
    assert_eq!(rt.current_speaker(), Some(("economist", qid)));
    assert_eq!(rt.round_deadline(), Some(90_000));
    // A second start does nothing.
    assert!(quiet(&rt.start(1)));
}

#[test]
fn stale_and_foreign_input_is_ignored() {
    let mut rt = unpaced(Scenario::from_yaml(SAMPLE_SCENARIO).unwrap());
    let out = rt.start(0);
    let (_, qid) = floor(&out).unwrap();
    assert!(quiet(&spoke(&mut rt, "engineer", None, "hi", 10)));
    assert!(quiet(&spoke(
        &mut rt,
        "economist",
        Some(qid + 100),
        "hi",
        10
    )));
    assert!(quiet(&intent(
        &mut rt,
        qid,
        Intent::speak("economist", 3),
        10
    )));
    assert_eq!(rt.current_speaker(), Some(("economist", qid)));
}

#[test]
fn dead_agents_time_out_and_the_session_still_ends() {
    let mut rt = unpaced(Scenario::from_yaml(SAMPLE_SCENARIO).unwrap());
    let bound = rt.scenario().max_decisions();
    let mut now = 0;
    let mut out = rt.start(now);
    let mut steps = 0;
    while !rt.is_ended() {
        steps += 1;
        assert!(steps < 1_000);
        now = rt
            .round_deadline()
            .expect("a running session always has a deadline");
        out = round_tick(&mut rt, now);
    }
    assert!(rt.finished());
    assert_eq!(says(&out).last().unwrap().0, LineKind::Closing);
    assert!(rt.decisions() <= bound);
    assert_eq!(rt.phase(), Phase::Ended);
    assert_eq!(rt.round_deadline(), None);
}

#[test]
fn stop_ends_with_a_closing_line() {
    let mut rt = unpaced(Scenario::from_yaml(SAMPLE_SCENARIO).unwrap());
    rt.start(0);
    let out = stop(&mut rt, 5);
    assert_eq!(says(&out)[0].0, LineKind::Closing);
    assert!(rt.is_ended() && rt.finished());
    assert!(quiet(&stop(&mut rt, 6)));
    assert!(quiet(&round_tick(&mut rt, 10_000_000)));

    let mut fresh = unpaced(Scenario::from_yaml(SAMPLE_SCENARIO).unwrap());
    let out = stop(&mut fresh, 0);
    assert!(says(&out).is_empty());
    assert!(fresh.is_ended() && fresh.finished());
}

/// Plays a roundtable with three agents whose intents come from the heuristic and whose
/// utterances are generated from the turn number; returns every output.
fn offline_run(yaml: &str) -> (Roundtable, Vec<Output>) {
    let mut rt = unpaced(Scenario::from_yaml(yaml).unwrap());
    let names: Vec<(String, String)> = rt
        .scenario()
        .agents
        .iter()
        .map(|a| (a.id.clone(), a.name.clone()))
        .collect();
    let mut now = 0u64;
    let mut all = Vec::new();
    let mut queue = rt.start(now);
    let mut turn = 0usize;
    for _ in 0..10_000 {
        if queue.is_empty() {
            if rt.is_ended() {
                break;
            }
            now = rt.round_deadline().unwrap();
            queue = round_tick(&mut rt, now);
            continue;
        }
        let outputs = std::mem::take(&mut queue);
        for output in &outputs {
            now += 10;
            if let Some(question_id) = collect(std::slice::from_ref(output)) {
                for heuristic in rt.heuristic_intents() {
                    let json = format!(
                        r#"{{"intent":"{}","urgency":{}}}"#,
                        heuristic.kind.as_str(),
                        heuristic.urgency
                    );
                    let parsed = parse_intent(&heuristic.agent, &json).unwrap();
                    assert_eq!(parsed, heuristic);
                    queue.extend(intent(&mut rt, question_id, parsed, now));
                }
            }
            if let Output::Turn {
                agent, question_id, ..
            } = output
            {
                turn += 1;
                let other = &names[(turn + 1) % names.len()];
                let text = if other.0 == *agent {
                    format!("Point number {turn} from me is that parking should cost more.")
                } else if turn.is_multiple_of(3) {
                    format!(
                        "I think point {turn} matters most for everyone. {}, do you agree?",
                        other.1
                    )
                } else {
                    format!("My point {turn} is that buses and bikes need space first.")
                };
                queue.extend(spoke(&mut rt, agent, Some(*question_id), &text, now));
            }
        }
        all.extend(outputs);
    }
    assert!(rt.is_ended(), "the run must end");
    (rt, all)
}

#[test]
fn complete_offline_run_passes_through_all_phases() {
    let (rt, all) = offline_run(SAMPLE_SCENARIO);
    let phases: Vec<Phase> = phase_changes(&all)
        .into_iter()
        .map(|(_, to, _)| to)
        .collect();
    for phase in [
        Phase::Opening,
        Phase::FreeDiscussion,
        Phase::FocusedConflict,
        Phase::Convergence,
        Phase::Closing,
        Phase::Ended,
    ] {
        assert!(phases.contains(&phase), "missing {phase}: {phases:?}");
    }
    let lines = says(&all);
    assert_eq!(lines.first().unwrap().0, LineKind::Opening);
    let (kind, text) = lines.last().unwrap();
    assert_eq!(*kind, LineKind::Closing);
    assert!(text.contains("to a close"));
    assert!(text.contains("Thank you to the economist, the engineer and the ethicist"));
    assert!(lines.iter().any(|(k, _)| *k == LineKind::Summary));
    assert!(lines.iter().any(|(k, _)| *k == LineKind::Transition));
    for (kind, text) in &lines {
        if *kind == LineKind::Summary {
            assert!(crate::tests::sentences(text) <= 3, "{text}");
        }
    }
    assert!(rt.finished());
    assert!(rt.decisions() <= rt.scenario().max_decisions());
    // Every agent spoke, in opening and closing at least.
    for agent in ["economist", "engineer", "ethicist"] {
        assert!(rt.state().speaks(agent) >= 2, "{agent}");
    }
    // Same input, same run.
    let (_, again) = offline_run(SAMPLE_SCENARIO);
    assert_eq!(all, again);
}

#[test]
fn rollback_in_a_session() {
    let yaml = "topic: t\nagents: [{id: a}, {id: b}]\nmoderator: {idle_pause_ms: 0}\nphases:\n  - {type: free_discussion, max_rounds: 1}\n  - {type: convergence, max_rounds: 2}\n";
    let mut rt = unpaced(Scenario::from_yaml(yaml).unwrap());
    let out = rt.start(0);
    let q = collect(&out).unwrap();
    intent(&mut rt, q, Intent::speak("a", 3), 1);
    let out = intent(&mut rt, q, Intent::pass("b"), 2);
    let (agent, qid) = floor(&out).unwrap();
    assert_eq!(agent, "a");
    let out = spoke(&mut rt, "a", Some(qid), "We should act now.", 3);
    // Summary, switch to convergence, then intents.
    assert_eq!(says(&out)[0].0, LineKind::Summary);
    assert_eq!(rt.phase(), Phase::Convergence);
    let q = collect(&out).unwrap();
    intent(&mut rt, q, Intent::interrupt("a", 5), 4);
    let out = intent(&mut rt, q, Intent::interrupt("b", 4), 5);
    assert!(phase_changes(&out).contains(&(Phase::Convergence, Phase::FreeDiscussion, true)));
    assert!(says(&out)[0].1.contains("far from settled"));
    assert_eq!(rt.state().rollbacks, 1);
}

#[test]
fn missing_intents_count_as_pass_at_the_deadline() {
    let yaml = "topic: t\nagents: [{id: a}, {id: b}]\nmoderator: {intent_timeout_ms: 100, idle_pause_ms: 0}\nphases: [{type: free_discussion}]\n";
    let mut rt = unpaced(Scenario::from_yaml(yaml).unwrap());
    let out = rt.start(0);
    let q = collect(&out).unwrap();
    assert_eq!(rt.round_deadline(), Some(100));
    assert!(quiet(&intent(&mut rt, q, Intent::speak("b", 2), 50)));
    let out = round_tick(&mut rt, 100);
    assert_eq!(floor(&out).unwrap().0, "b");
}

fn has_latin_words(text: &str, allowed: &[&str]) -> bool {
    let mut rest = text.to_owned();
    for a in allowed {
        rest = rest.replace(a, "");
    }
    rest.chars().any(|c| c.is_ascii_alphabetic())
}

#[test]
fn a_chinese_scenario_is_moderated_in_chinese() {
    let yaml = include_str!("../../../../dataflows/scenarios/roundtable-zh.yml");
    let scenario = Scenario::from_yaml(yaml).unwrap();
    assert_eq!(scenario.language, Language::Zh);
    let names: Vec<String> = scenario.agents.iter().map(|a| a.name.clone()).collect();
    assert!(names.iter().all(|n| !has_latin_words(n, &[])));
    let mut rt = unpaced(scenario.clone());
    let mut now = 0;
    let mut out = rt.start(now);
    let mut lines = says(&out);
    let mut instructions = Vec::new();
    let mut steps = 0;
    while !rt.is_ended() {
        steps += 1;
        assert!(steps < 1_000);
        let mut given = None;
        for o in &out {
            if let Output::Turn {
                agent,
                question_id,
                instruction: Some(i),
                ..
            } = o
            {
                instructions.push(i.clone());
                given = Some((agent.clone(), *question_id));
            }
        }
        now = match given {
            // Every agent speaks when given the floor (in Chinese).
            Some((speaker, question_id)) => {
                now += 1_000;
                out = spoke(
                    &mut rt,
                    &speaker,
                    Some(question_id),
                    "我认为公共交通必须先改善，然后才能限制汽车。",
                    now,
                );
                lines.extend(says(&out));
                continue;
            }
            None => rt.round_deadline().expect("a deadline"),
        };
        out = round_tick(&mut rt, now);
        lines.extend(says(&out));
    }
    assert!(
        lines[0].1.starts_with("欢迎来到我们的圆桌讨论"),
        "{lines:?}"
    );
    assert_eq!(lines.last().unwrap().0, LineKind::Closing);
    assert!(
        lines
            .last()
            .unwrap()
            .1
            .starts_with("今天的圆桌讨论到此结束")
    );
    assert!(lines.iter().any(|(k, _)| *k == LineKind::Summary));
    for (kind, text) in &lines {
        assert!(!has_latin_words(text, &[]), "{kind:?}: {text}");
    }
    assert!(!instructions.is_empty());
    assert!(
        instructions.iter().all(|i| i.contains("请用中文")),
        "{instructions:?}"
    );
}

/// Nothing decided or sent: at most notices (what was ignored, for the log).
fn quiet(out: &[Output]) -> bool {
    out.iter().all(|o| matches!(o, Output::Notice(_)))
}

// The human at the table.

fn floor_changes(out: &[Output]) -> Vec<::conductor::FloorChange> {
    out.iter()
        .filter_map(|o| match o {
            Output::Floor(change) => Some(*change),
            _ => None,
        })
        .collect()
}

fn interrupt(out: &[Output]) -> Option<u64> {
    out.iter().find_map(|o| match o {
        Output::Interrupt { question_id } => Some(*question_id),
        _ => None,
    })
}

/// A paced roundtable whose first agent is writing its turn; the opening line and the
/// call sound (reported started), the agent has said `written`, and its first words
/// sound too when `sounding`.
fn agent_speaking(written: &str, sounding: bool) -> (Roundtable, String, u64) {
    let mut c = conductor(true);
    let out = c.start(0);
    for (q, _) in lines(&out) {
        assert!(quiet(&c.on_playback_started(q)));
    }
    let (agent, q) = turn(&out).expect("a first turn");
    c.on_text(&agent, Some(q), false, written, None, 10);
    if sounding {
        c.on_playback_started(q);
    }
    (c, agent, q)
}

#[test]
fn the_humans_sound_holds_a_sounding_voice_and_a_backchannel_lets_it_go_on() {
    use ::conductor::FloorChange::{Hold, Release};
    let mut silent = conductor(true);
    silent.start(0);
    assert!(
        floor_changes(&silent.on_speech_started(Some(7), 5)).is_empty(),
        "nothing sounds: nothing to hold"
    );
    let (mut c, _, _) = agent_speaking("Cars are", true);
    assert_eq!(
        floor_changes(&c.on_speech_started(Some(7), 20)),
        [Hold { onset_us: Some(7) }]
    );
    assert!(
        floor_changes(&c.on_speech_started(Some(8), 21)).is_empty(),
        "held once"
    );
    assert_eq!(floor_changes(&c.on_backchannel()), [Release]);
    // A transcript with no words lets it go on as well, and so does the hold's limit.
    c.on_speech_started(None, 30);
    assert_eq!(floor_changes(&c.on_human(None, "  ", None, 40)), [Release]);
    c.on_speech_started(None, 50);
    let wake = c.next_wake().expect("the hold's limit");
    assert!(wake <= 50 + ::conductor::floor::HOLD_LIMIT_MS, "{wake}");
    let out = c.tick(50 + ::conductor::floor::HOLD_LIMIT_MS);
    assert_eq!(floor_changes(&out), [Release], "{out:#?}");
    assert!(out.contains(&Output::Notice(Notice::FloorNotTaken)));
}

#[test]
fn the_humans_words_cut_what_sounds_and_the_agent_they_name_answers_first() {
    let (mut c, agent, q) = agent_speaking("Cars are", true);
    let other = if agent == "a" { "b" } else { "a" };
    c.on_speech_started(None, 20);
    let out = c.on_human(
        None,
        &format!("Sorry, {other}, what would you do?"),
        None,
        30,
    );
    let cut = interrupt(&out).expect("the held voice is cut");
    assert!(cut > q, "{out:#?}");
    // What the cut agent had said stands; the human's words go to everyone, then the
    // named agent's turn, all in that order and with growing ids.
    let utterances: Vec<(&str, u64, bool)> = out
        .iter()
        .filter_map(|o| match o {
            Output::Utterance {
                speaker,
                question_id,
                human,
                ..
            } => Some((speaker.as_str(), *question_id, *human)),
            _ => None,
        })
        .collect();
    assert_eq!(utterances[0], (agent.as_str(), q, false), "{out:#?}");
    assert_eq!(utterances[1].0, "human");
    assert!(utterances[1].2 && utterances[1].1 > cut);
    let (answerer, answer_q) = turn(&out).expect("an answer is asked for at once");
    assert_eq!(answerer, other);
    assert!(answer_q > utterances[1].1);
    let instruction = out
        .iter()
        .find_map(|o| match o {
            Output::Turn { instruction, .. } => instruction.clone(),
            _ => None,
        })
        .unwrap();
    assert!(instruction.contains("what would you do?"), "{instruction}");
    assert!(instruction.contains("our guest"), "{instruction}");
    assert!(
        out.iter().any(|o| matches!(
            o,
            Output::Turn {
                answers_human: true,
                ..
            }
        )),
        "the answer is marked for the model host"
    );
    assert!(
        out.iter()
            .any(|o| matches!(o, Output::Decision(d) if d.target.as_deref() == Some(other))),
        "the handover is a recorded decision: {out:#?}"
    );
    // The cut agent's later text is stale; the answer is taken and the rounds go on.
    assert!(turn(&c.on_text(&agent, Some(q), true, "bad.", None, 40)).is_none());
    let rounds = c.state().phase_round;
    let next = c.on_text(other, Some(answer_q), true, "I would tax them.", None, 50);
    assert_eq!(c.state().speaks(other), 1);
    assert_eq!(
        c.state().phase_round,
        rounds,
        "the answer is an aside: no round of the phase used"
    );
    assert!(
        next.iter()
            .any(|o| matches!(o, Output::Utterance { speaker, .. } if speaker == other))
    );
    assert!(!c.finished());
}

#[test]
fn words_that_name_nobody_are_answered_by_the_agent_talked_over() {
    let (mut c, agent, _) = agent_speaking("Cars are", true);
    let out = c.on_human(Some("Sam".into()), "I disagree with that.", None, 30);
    assert!(interrupt(&out).is_some(), "typed words cut as well");
    assert_eq!(turn(&out).map(|(a, _)| a), Some(agent));
    assert!(
        out.iter().any(
            |o| matches!(o, Output::Utterance { speaker, human: true, .. } if speaker == "Sam")
        )
    );
}

#[test]
fn words_before_an_agent_was_heard_cost_it_nothing() {
    for written in ["", "Cars are"] {
        let (mut c, agent, _) = agent_speaking(written, false);
        let before = c.state().clone();
        let out = c.on_human(None, "Can we talk about buses?", None, 30);
        assert!(
            !out.iter()
                .any(|o| matches!(o, Output::Utterance { human: false, .. })),
            "{out:#?}"
        );
        assert_eq!(c.state().phase_floors(&agent), before.phase_floors(&agent));
        assert_eq!(c.state().last_speaker.as_deref(), Some("human"));
        assert!(turn(&out).is_some());
    }
}

#[test]
fn words_after_the_end_are_recorded_and_not_answered() {
    let mut c = conductor(true);
    c.start(0);
    stop(&mut c, 10);
    let out = c.on_human(None, "Thank you all.", None, 20);
    assert!(
        interrupt(&out).is_none() && turn(&out).is_none(),
        "{out:#?}"
    );
    assert!(out.contains(&Output::Notice(Notice::HumanAfterEnd)));
    assert!(
        out.iter()
            .any(|o| matches!(o, Output::Utterance { human: true, .. }))
    );
}

#[test]
fn a_session_with_the_human_speaking_in_every_turn_still_ends() {
    // The human cuts in on every other turn, the answers included; the rounds still
    // go on to the end.
    let mut c = conductor(false);
    let mut now = 0;
    let mut pending = c.start(now);
    let mut steps = 0;
    let mut cut_in = 0;
    let mut turns = 0;
    while !c.finished() {
        steps += 1;
        assert!(steps < 1_000, "the session does not end");
        now += 10;
        let mut next = Vec::new();
        if let Some((agent, q)) = turn(&pending) {
            turns += 1;
            if turns % 2 == 0 {
                cut_in += 1;
                next = c.on_human(None, "And what about buses?", None, now);
            } else {
                next = c.on_text(&agent, Some(q), true, "I think so.", None, now);
            }
        }
        if next.is_empty() && !c.finished() {
            now = c.next_wake().expect("a wake-up").max(now);
            next = c.tick(now);
        }
        pending = next;
    }
    assert!(cut_in >= 3, "{cut_in}");
}

#[test]
fn the_moderators_lines_cut_unheard_are_said_again_after_the_answer() {
    // Nothing was reported sounding: the opening and the call are cut unheard.
    let mut c = conductor(true);
    let out = c.start(0);
    let opening = says(&out)
        .into_iter()
        .find(|(kind, _)| *kind == LineKind::Opening)
        .expect("an opening line");
    let out = c.on_human(None, "Before you start: what about buses?", None, 10);
    assert!(says(&out).is_empty(), "the answer comes first: {out:#?}");
    let (agent, q) = turn(&out).unwrap();
    let after = c.on_text(&agent, Some(q), true, "Buses matter.", None, 20);
    let again = says(&after);
    assert_eq!(again.first(), Some(&opening), "{after:#?}");
    assert_eq!(again.iter().filter(|l| **l == opening).count(), 1);
}
