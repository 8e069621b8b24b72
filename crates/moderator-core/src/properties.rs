//! Property tests: the parsers never panic; the decision rules keep the spec's rules for
//! any state and intents; a session always ends, whatever the agents do.

use std::collections::BTreeMap;

use crate::roundtable::decide::*;
use crate::roundtable::state::*;
use crate::roundtable::{Config, Output, SideRequest};
use crate::*;
use proptest::prelude::*;

const IDS: [&str; 4] = ["a1", "a2", "a3", "a4"];

fn phase_strategy() -> impl Strategy<Value = Phase> {
    prop_oneof![
        Just(Phase::Opening),
        Just(Phase::FreeDiscussion),
        Just(Phase::FocusedConflict),
        Just(Phase::Convergence),
        Just(Phase::Closing),
    ]
}

fn order_strategy() -> impl Strategy<Value = SpeakingOrder> {
    prop_oneof![
        Just(SpeakingOrder::Free),
        Just(SpeakingOrder::RoundRobin),
        Just(SpeakingOrder::ModeratorCalled),
    ]
}

fn kind_strategy() -> impl Strategy<Value = IntentKind> {
    prop_oneof![
        Just(IntentKind::Speak),
        Just(IntentKind::Interrupt),
        Just(IntentKind::Pass),
    ]
}

/// Intents as the rules may receive them: unknown agents, duplicates, urgency out
/// of range.
fn intents_strategy() -> impl Strategy<Value = Vec<Intent>> {
    prop::collection::vec(
        (0usize..5, kind_strategy(), 0u8..8).prop_map(|(i, kind, urgency)| Intent {
            agent: IDS.get(i).copied().unwrap_or("stranger").to_owned(),
            kind,
            urgency,
        }),
        0..8,
    )
}

#[derive(Debug, Clone)]
struct Knobs {
    agents: usize,
    level: u8,
    cold: u32,
    max_consecutive: u32,
    rollbacks: u32,
    warn_after: u32,
    idle_pause_ms: u64,
    rounds: Vec<u32>,
    orders: Vec<SpeakingOrder>,
    interrupts: Vec<bool>,
    skip: Vec<bool>,
}

fn knobs_strategy() -> impl Strategy<Value = Knobs> {
    (
        (
            1usize..=4,
            0u8..=3,
            1u32..4,
            1u32..4,
            0u32..3,
            1u32..3,
            prop_oneof![Just(0u64), Just(250u64)],
        ),
        (
            prop::collection::vec(1u32..5, 5),
            prop::collection::vec(order_strategy(), 5),
            prop::collection::vec(any::<bool>(), 5),
            prop::collection::vec(prop::bool::weighted(0.2), 5),
        ),
    )
        .prop_map(
            |(
                (agents, level, cold, max_consecutive, rollbacks, warn_after, idle_pause_ms),
                (rounds, orders, interrupts, skip),
            )| Knobs {
                agents,
                level,
                cold,
                max_consecutive,
                rollbacks,
                warn_after,
                idle_pause_ms,
                rounds,
                orders,
                interrupts,
                skip,
            },
        )
}

fn scenario(k: &Knobs) -> Scenario {
    let mut yaml = String::from("topic: Trains or planes?\nagents:\n");
    for id in &IDS[..k.agents] {
        yaml.push_str(&format!("  - id: {id}\n"));
    }
    yaml.push_str(&format!(
        "moderator: {{intervention_level: {}, cold_threshold: {}, max_consecutive_speaks: {}, max_rollbacks: {}, warn_after: {}, idle_pause_ms: {}, intent_timeout_ms: 1000, speech_timeout_ms: 5000}}\nphases:\n",
        k.level, k.cold, k.max_consecutive, k.rollbacks, k.warn_after, k.idle_pause_ms
    ));
    let mut any = false;
    for (i, kind) in PhaseType::ALL.iter().enumerate() {
        let last_chance = i == 4 && !any;
        if k.skip[i] && !last_chance {
            continue;
        }
        any = true;
        let order = match k.orders[i] {
            SpeakingOrder::Free => "free",
            SpeakingOrder::RoundRobin => "round_robin",
            SpeakingOrder::ModeratorCalled => "moderator_called",
        };
        yaml.push_str(&format!(
            "  - {{type: {}, max_rounds: {}, speaking_order: {order}, allow_interrupt: {}}}\n",
            kind.as_str(),
            k.rounds[i],
            k.interrupts[i]
        ));
    }
    Scenario::from_yaml(&yaml).expect("generated scenario is valid")
}

fn state_strategy()
-> impl Strategy<Value = (Phase, u32, u32, Option<usize>, u32, Vec<u32>, Vec<u32>)> {
    (
        phase_strategy(),
        0u32..6,
        0u32..7,
        prop::option::of(0usize..4),
        0u32..4,
        prop::collection::vec(0u32..6, 4),
        prop::collection::vec(0u32..3, 4),
    )
}

/// What the agents and the clock hand the rounds, without the intake's heuristic
/// fallback or the pacing in front: intents as given (also out of range), utterances
/// as finished.
#[derive(Debug)]
enum RoundCall {
    Start,
    Intent {
        question_id: u64,
        intent: Intent,
    },
    Spoke {
        speaker: String,
        question_id: Option<u64>,
        text: String,
    },
    Tick,
}

impl RoundCall {
    fn run(self, rt: &mut Roundtable, now: u64) -> Vec<Output> {
        let mut out = Vec::new();
        match self {
            RoundCall::Start => out = rt.start(now),
            RoundCall::Intent {
                question_id,
                intent,
            } => rt.take_intent(question_id, intent, now, &mut out),
            RoundCall::Spoke {
                speaker,
                question_id,
                text,
            } => rt.finish_turn(&speaker, question_id, text, now, &mut out),
            RoundCall::Tick => rt.check_deadlines(now, &mut out),
        }
        out
    }
}

/// The round an intent request asks about.
fn request_round(request: &SideRequest) -> u64 {
    request.id.strip_prefix("intent-").unwrap().parse().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn intent_parser_never_panics(s in "\\PC{0,60}") {
        let _ = parse_intent("a", &s);
    }

    #[test]
    fn intent_parser_never_panics_on_json_soup(
        s in "[{}\\[\\]\":,0-9a-z \\-.eE]{0,50}"
    ) {
        if let Ok(intent) = parse_intent("a", &s) {
            prop_assert!((1..=5).contains(&intent.urgency));
        }
    }

    #[test]
    fn intent_parser_accepts_exactly_the_valid_answers(kind in kind_strategy(), urgency in -3i64..9) {
        let answer = format!(r#"{{"intent":"{}","urgency":{urgency}}}"#, kind.as_str());
        let parsed = parse_intent("x", &answer);
        if (1..=5).contains(&urgency) {
            prop_assert_eq!(parsed, Ok(Intent::new("x", kind, urgency as u8)));
        } else {
            prop_assert_eq!(parsed, Err(IntentError::UrgencyOutOfRange(i128::from(urgency))));
        }
    }

    #[test]
    fn scenario_parser_never_panics(s in "\\PC{0,80}") {
        let _ = Scenario::from_yaml(&s);
    }

    #[test]
    fn scenario_parser_never_panics_on_yaml_soup(
        s in "(topic: x\n)?(agents: \\[\\{id: [ab]\\}(, \\{id: [ab]\\})?\\]\n)?(phases: \\[\\{type: (opening|closing|focused_conflict|nope), max_rounds: [0-2]\\}\\]\n)?(moderator: \\{intervention_level: [0-9]\\}\n)?[ :{}\\[\\]a-z0-9\n-]{0,20}"
    ) {
        if let Ok(s) = Scenario::from_yaml(&s) {
            prop_assert!(!s.agents.is_empty());
            prop_assert!(s.phases.iter().all(|p| p.max_rounds > 0));
        }
    }

    #[test]
    fn heuristic_urgency_is_in_range(
        addressed in any::<bool>(), question in any::<bool>(), own in 0u32..20,
        others in 0u32..40, count in 0u32..5, since in prop::option::of(0u64..10),
        phase in phase_strategy(), last_is_me in any::<bool>()
    ) {
        let ctx = HeuristicContext {
            last_speaker: Some(if last_is_me { "me" } else { "you" }.to_owned()),
            last_text: String::new(),
            addressed,
            is_question: question,
            own_speaks: own,
            others_speaks: others,
            others_count: count,
            rounds_since_spoke: since,
            phase,
        };
        let intent = heuristic_intent("me", &ctx);
        prop_assert!((1..=5).contains(&intent.urgency));
        if last_is_me {
            prop_assert_eq!(intent.kind, IntentKind::Pass);
        }
    }

    /// For any state and intents: one target at most, and a known agent; the floor never
    /// goes to an agent at the consecutive limit; an interruption needs permission and
    /// urgency ≥ 3.
    #[test]
    fn decisions_keep_the_rules(
        knobs in knobs_strategy(),
        (phase, round, idle, last, consecutive, counts, refused) in state_strategy(),
        intents in intents_strategy(),
    ) {
        let scenario = scenario(&knobs);
        let c = scenario.clone();
        let Some(cfg) = phase_config(&c, phase).cloned() else { return Ok(()) };
        let mut state = update_state_after_phase_switch(&initial_state(&c), phase, false);
        let agents = &IDS[..knobs.agents];
        state.phase_round = round;
        state.idle_rounds = idle;
        state.last_speaker = last.filter(|i| *i < knobs.agents).map(|i| agents[i].to_owned());
        state.consecutive_speaks = if state.last_speaker.is_some() { consecutive } else { 0 };
        for (i, id) in agents.iter().enumerate() {
            state.speak_counts.insert((*id).to_owned(), counts[i]);
            state.phase_speak_counts.insert((*id).to_owned(), counts[i] / 2);
            state.refused_requests.insert((*id).to_owned(), refused[i]);
        }
        let d = decide_next_action(&c, &state, &intents, &[]);
        if let Some(target) = &d.target {
            prop_assert!(scenario.agent(target).is_some());
        }
        if d.action.grants_floor() {
            let target = d.target.clone().expect("a grant has a target");
            let at_limit = state.last_speaker.as_deref() == Some(target.as_str())
                && state.consecutive_speaks >= knobs.max_consecutive;
            prop_assert!(!at_limit);
        }
        if d.is_interrupt {
            prop_assert_eq!(d.action, ModeratorAction::AllowSpeech);
            prop_assert!(cfg.allow_interrupt);
            let target = d.target.clone().unwrap();
            let last = intents.iter().rev().find(|i| i.agent == target).unwrap();
            prop_assert_eq!(last.kind, IntentKind::Interrupt);
            prop_assert!(last.urgency.clamp(1, 5) >= MIN_INTERRUPT_URGENCY);
        }
    }

    /// Whole sessions with arbitrary (also dead or silent) agents: the session ends
    /// within `max_decisions`, with a closing line; question ids strictly increase; one
    /// floor at a time; the consecutive limit holds over the speeches actually made; an
    /// interruption is granted only where allowed and only on an interrupt of urgency ≥ 3.
    #[test]
    fn sessions_always_end_and_keep_the_rules(
        knobs in knobs_strategy(),
        script in prop::collection::vec(any::<u8>(), 64..256),
    ) {
        let scenario = scenario(&knobs);
        let bound = scenario.max_decisions();
        let speech_timeout = scenario.moderator.speech_timeout_ms;
        let max_consecutive = scenario.moderator.max_consecutive_speaks;
        let agents: Vec<String> = scenario.agents.iter().map(|a| a.id.clone()).collect();
        let mut rt = Roundtable::new(
            scenario.clone(),
            Config { paced: false, max_unplayed: 1, playback_timeout_ms: 5_000 },
        );
        let mut pick = {
            let mut i = 0usize;
            move || { i += 1; script[i % script.len()] }
        };

        let mut now = 0u64;
        let mut last_qid = 0u64;
        let mut holder: Option<(String, u64, u64)> = None;
        let mut speeches: Vec<String> = Vec::new();
        let mut round_intents: BTreeMap<String, Intent> = BTreeMap::new();
        let mut ended = false;
        let mut closing_said = false;
        let mut pending: Vec<RoundCall> = vec![RoundCall::Start];
        let mut calls = 0;

        while !ended {
            calls += 1;
            prop_assert!(calls < 20_000, "session did not end");
            let call = if pending.is_empty() {
                let deadline = rt.round_deadline();
                prop_assert!(deadline.is_some(), "a running session has a deadline");
                now = now.max(deadline.unwrap());
                RoundCall::Tick
            } else {
                now += u64::from(pick() % 50);
                pending.remove(0)
            };
            if let Some((agent, _, deadline)) = &holder {
                let finished = matches!(&call, RoundCall::Spoke { speaker, .. } if speaker == agent);
                if finished || now >= *deadline {
                    holder = None;
                }
            }
            let out = call.run(&mut rt, now);
            let floors = out.iter().filter(|o| matches!(o, Output::Turn { .. })).count();
            prop_assert!(floors <= 1);
            for output in out {
                let qid = match &output {
                    Output::Request(request) => Some(request_round(request)),
                    Output::Turn { question_id, .. } | Output::Line { question_id, .. } => {
                        Some(*question_id)
                    }
                    _ => None,
                };
                if let Some(q) = qid {
                    prop_assert!(q > last_qid, "question ids must increase");
                    last_qid = q;
                }
                match output {
                    Output::Decision(d) => {
                        if d.is_interrupt {
                            let phase: Phase = serde_json::from_value(d.phase.clone().into()).unwrap();
                            let cfg = scenario.phase(phase.phase_type().unwrap()).unwrap();
                            prop_assert!(cfg.allow_interrupt);
                            let target = d.target.clone().unwrap();
                            let intent = round_intents.get(&target).unwrap();
                            prop_assert_eq!(intent.kind, IntentKind::Interrupt);
                            prop_assert!(intent.urgency.clamp(1, 5) >= MIN_INTERRUPT_URGENCY);
                        }
                    }
                    Output::Request(request) => {
                        let question_id = request_round(&request);
                        round_intents.clear();
                        for id in &agents {
                            let roll = pick();
                            if roll % 5 == 0 {
                                continue; // dead or late: counts as pass
                            }
                            let kind = match roll % 3 {
                                0 => IntentKind::Speak,
                                1 => IntentKind::Interrupt,
                                _ => IntentKind::Pass,
                            };
                            let intent = Intent { agent: id.clone(), kind, urgency: pick() % 7 };
                            round_intents.insert(id.clone(), intent.clone());
                            pending.push(RoundCall::Intent { question_id, intent });
                        }
                        if pick() % 4 == 0 {
                            pending.push(RoundCall::Intent {
                                question_id: question_id.wrapping_sub(1),
                                intent: Intent::interrupt(agents[0].clone(), 5),
                            });
                        }
                    }
                    Output::Turn { agent, question_id, .. } => {
                        prop_assert!(holder.is_none(), "two speakers at once");
                        holder = Some((agent.clone(), question_id, now + speech_timeout));
                        let roll = pick();
                        if roll % 6 != 0 {
                            let text = if roll % 6 == 1 { String::from("  ") } else { format!("Point {roll}.") };
                            if !text.trim().is_empty() {
                                speeches.push(agent.clone());
                            }
                            pending.push(RoundCall::Spoke {
                                speaker: agent,
                                question_id: Some(question_id),
                                text,
                            });
                        }
                    }
                    Output::Line { kind, .. } => {
                        if kind == LineKind::Closing {
                            closing_said = true;
                        }
                    }
                    Output::Utterance { .. }
                    | Output::Status(_)
                    | Output::Notice(_)
                    | Output::Interrupt { .. }
                    | Output::Floor(_) => {}
                }
            }
            ended = rt.is_ended();
        }
        prop_assert!(closing_said);
        prop_assert_eq!(rt.phase(), Phase::Ended);
        prop_assert!(rt.decisions() <= bound, "{} decisions > bound {}", rt.decisions(), bound);
        let mut run = 0u32;
        for (i, s) in speeches.iter().enumerate() {
            run = if i > 0 && speeches[i - 1] == *s { run + 1 } else { 1 };
            prop_assert!(run <= max_consecutive, "{} spoke {} times in a row", s, run);
        }
    }
}
