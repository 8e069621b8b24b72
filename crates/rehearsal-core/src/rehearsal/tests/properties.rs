//! Property tests: parsers never panic; the moderator keeps its invariants under
//! arbitrary event sequences.

use std::collections::BTreeMap;

use crate::{
    Action, Deck, Event, Instruction, Intensity, InteractionMode, Notice, PanelConfig, Phase,
    PhraseLibrary, Rehearsal,
};
use proptest::prelude::*;

const DECK: &str = include_str!("../../../examples/deck.md");

const TEXTS: &[&str] = &[
    "Our gross margin is 62 percent at fifty robots.",
    "Gross margin is 62 percent at fifty robots, again.",
    "What is your gross margin at fifty robots?",
    "Who are your competitors and why won't they copy you?",
    "Let's move on, next question please.",
    "",
    "Competitors copy margin robots fifty percent.",
    "We deploy in three weeks.",
];

#[derive(Debug, Clone)]
enum Op {
    Wait(u64),
    Speech(usize, u64),
    SpeechStarted,
    Silence(u64),
    Slide(usize),
    OpenQa,
    Hand(usize, f64),
    Ack(Option<usize>),
    Candidate(usize, usize, f64),
    FinishCurrent(usize),
    FinishStale(usize, u64),
    Answer(usize),
    LineFinished(u64),
    LatestLineFinished,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u64..30_000).prop_map(Op::Wait),
        4 => (0..TEXTS.len(), 500u64..8_000).prop_map(|(t, d)| Op::Speech(t, d)),
        1 => Just(Op::SpeechStarted),
        2 => (0u64..5_000).prop_map(Op::Silence),
        2 => (0usize..7).prop_map(Op::Slide),
        1 => Just(Op::OpenQa),
        2 => (0usize..4, 0.0f64..1.0).prop_map(|(a, u)| Op::Hand(a, u)),
        1 => prop::option::of(0usize..4).prop_map(Op::Ack),
        3 => (0usize..4, 0..TEXTS.len(), -0.5f64..1.5).prop_map(|(a, t, r)| Op::Candidate(a, t, r)),
        5 => (0..TEXTS.len()).prop_map(Op::FinishCurrent),
        1 => (0usize..4, 0u64..20).prop_map(|(a, q)| Op::FinishStale(a, q)),
        4 => (0..TEXTS.len()).prop_map(Op::Answer),
        1 => (0u64..40).prop_map(Op::LineFinished),
        4 => Just(Op::LatestLineFinished),
    ]
}

fn config() -> impl Strategy<Value = PanelConfig> {
    (
        prop_oneof![
            Just(Intensity::Friendly),
            Just(Intensity::Moderate),
            Just(Intensity::Adversarial)
        ],
        prop_oneof![
            Just(InteractionMode::SectionBreaks),
            Just(InteractionMode::HandRaise),
            Just(InteractionMode::FreeFlow)
        ],
        prop_oneof![Just(150u64), Just(400), Just(1200)],
        1usize..=2,
        1usize..=2,
    )
        .prop_map(|(intensity, mode, secs, hands, per_break)| {
            let mut c = PanelConfig {
                intensity,
                mode,
                session_duration_s: secs,
                ..PanelConfig::default()
            };
            c.thresholds.max_hands_raised = hands;
            c.thresholds.exchanges_per_break = per_break;
            c
        })
}

const AGENTS: [&str; 4] = ["skeptic", "analyst", "contrarian", "stranger"];

/// Invariant checker fed with every step.
struct Watch {
    phase: Phase,
    speaking: Option<u64>,
    turns: BTreeMap<u64, u32>,
    pile_ons: BTreeMap<u64, u32>,
    last_ask: Option<u64>,
    last_return: Option<u64>,
    debriefs: usize,
}

impl Watch {
    fn check(
        &mut self,
        core: &Rehearsal,
        event: &Event,
        now: u64,
        out: &[Action],
    ) -> Result<(), TestCaseError> {
        let config = core.config();
        let limit = config.intensity.max_agent_turns();
        if let Event::AgentTurnFinished { question_id, .. } = event
            && Some(*question_id) == self.speaking
            && !out
                .iter()
                .any(|a| matches!(a, Action::Notice(Notice::StaleTurn { .. })))
        {
            self.speaking = None;
        }
        for a in out {
            match a {
                Action::PhaseChanged { from, to } => {
                    prop_assert_eq!(*from, self.phase);
                    prop_assert!(
                        super::super::phases::can_become(*from, *to),
                        "{:?} → {:?}",
                        from,
                        to
                    );
                    if (*from, *to) == (Phase::Resolving, Phase::Presenting) {
                        self.last_return = Some(now);
                    }
                    self.phase = *to;
                }
                Action::CancelAgent { question_id, .. } => {
                    prop_assert_eq!(Some(*question_id), self.speaking);
                    self.speaking = None;
                }
                Action::CallAgent {
                    question_id,
                    exchange_id,
                    instruction,
                    ..
                } => {
                    prop_assert!(self.speaking.is_none(), "two agents on the floor");
                    self.speaking = Some(*question_id);
                    match instruction {
                        Instruction::AskQuestion | Instruction::FollowUp => {
                            let n = self.turns.entry(*exchange_id).or_default();
                            *n += 1;
                            prop_assert!(*n <= limit, "{} turns > {}", n, limit);
                        }
                        Instruction::PileOn => {
                            let n = self.pile_ons.entry(*exchange_id).or_default();
                            *n += 1;
                            prop_assert!(*n <= 1);
                            prop_assert!(core.remaining_ms(now) >= 180_000);
                        }
                    }
                    if *instruction == Instruction::AskQuestion {
                        if config.mode == InteractionMode::FreeFlow
                            && *event != Event::OpenQaRequested
                        {
                            let since = self.last_ask.max(self.last_return);
                            if let Some(s) = since {
                                prop_assert!(
                                    now - s >= 20_000,
                                    "interjection {} ms after",
                                    now - s
                                );
                            }
                        }
                        self.last_ask = Some(now);
                    }
                }
                Action::WriteDebrief { .. } => self.debriefs += 1,
                _ => {}
            }
        }
        prop_assert_eq!(self.phase, core.phase());
        prop_assert_eq!(self.speaking, core.speaking().map(|s| s.1));
        prop_assert!(core.hands_raised().len() <= config.thresholds.max_hands_raised);
        prop_assert!(core.hands_raised().len() <= 2);
        prop_assert!(core.exchange_agent_turns().unwrap_or(0) <= limit);
        Ok(())
    }
}

fn to_event(op: &Op, core: &Rehearsal, now: &mut u64, latest_line: Option<u64>) -> Event {
    match op {
        Op::Wait(ms) => {
            *now += ms;
            Event::Tick
        }
        Op::Speech(t, d) => {
            let start = *now;
            *now += d;
            Event::PresenterSpeech {
                text: TEXTS[*t].into(),
                start_ms: start,
                end_ms: *now,
            }
        }
        Op::SpeechStarted => Event::PresenterSpeechStarted,
        Op::Silence(ms) => Event::PresenterSilence { duration_ms: *ms },
        Op::Slide(i) => Event::SlideChanged { index: *i },
        Op::OpenQa => Event::OpenQaRequested,
        Op::Hand(a, u) => Event::HandRaised {
            agent: AGENTS[*a].into(),
            urgency: *u,
        },
        Op::Ack(a) => Event::PresenterAcknowledged {
            agent: a.map(|a| AGENTS[a].into()),
        },
        Op::Candidate(a, t, r) => Event::CandidateReady {
            agent: AGENTS[*a].into(),
            text: TEXTS[*t].into(),
            relevance: *r,
        },
        Op::FinishCurrent(t) => match core.speaking() {
            Some((agent, question_id)) => Event::AgentTurnFinished {
                agent: agent.into(),
                question_id,
                text: TEXTS[*t].into(),
            },
            None => Event::Tick,
        },
        Op::FinishStale(a, q) => Event::AgentTurnFinished {
            agent: AGENTS[*a].into(),
            question_id: *q,
            text: "stale".into(),
        },
        Op::Answer(t) => {
            *now += 1_000;
            Event::PresenterAnswerFinished {
                text: TEXTS[*t].into(),
            }
        }
        Op::LineFinished(id) => Event::ModeratorLineFinished { line_id: *id },
        Op::LatestLineFinished => Event::ModeratorLineFinished {
            line_id: latest_line.unwrap_or(0),
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn moderator_invariants_hold(config in config(), ops in prop::collection::vec(op(), 1..120)) {
        let paced = crate::rehearsal::Config { paced: true };
        let mut core = Rehearsal::new(config, Deck::parse(DECK), PhraseLibrary::builtin(), paced).unwrap();
        let mut watch = Watch {
            phase: Phase::Presenting,
            speaking: None,
            turns: BTreeMap::new(),
            pile_ons: BTreeMap::new(),
            last_ask: None,
            last_return: None,
            debriefs: 0,
        };
        let mut now = 0;
        let mut latest_line = None;
        for op in &ops {
            let event = to_event(op, &core, &mut now, latest_line);
            let out = core.decide(event.clone(), now);
            for a in &out {
                if let Action::Say { line_id, .. } = a {
                    latest_line = Some(*line_id);
                }
            }
            watch.check(&core, &event, now, &out)?;
        }
        now += 1;
        let out = core.decide(Event::EndSession, now);
        watch.check(&core, &Event::EndSession, now, &out)?;
        prop_assert_eq!(core.phase(), Phase::Ended);
        prop_assert_eq!(watch.debriefs, 1);
        prop_assert!(core.decide(Event::Tick, now + 1).is_empty());
        prop_assert!(core.decide(Event::EndSession, now + 2).is_empty());
    }

    #[test]
    fn deck_parser_never_panics(s in "\\PC{0,300}") {
        let deck = Deck::parse(&s);
        for (i, slide) in deck.slides.iter().enumerate() {
            prop_assert_eq!(slide.index, i);
            prop_assert!(!slide.title.is_empty());
            prop_assert!(slide.keywords.len() <= crate::deck::MAX_KEYWORDS);
        }
    }

    #[test]
    fn deck_parser_never_panics_on_markdown_soup(s in "(## ?|# |```|---|\\.\\.\\.|- |[a-zé ]{0,8}|\n|    ){0,40}") {
        let deck = Deck::parse(&s);
        // A heading may be indented by up to three spaces (as in CommonMark).
        let headings = s
            .lines()
            .map(|l| {
                let indent = l.len() - l.trim_start_matches(' ').len();
                if indent <= 3 { &l[indent..] } else { l }
            })
            .filter(|l| l.starts_with("## ") || *l == "##")
            .count();
        prop_assert!(deck.len() <= headings + 1);
    }

    #[test]
    fn phrase_library_never_panics(s in "\\PC{0,300}") {
        let (lib, _) = PhraseLibrary::parse(&s);
        for kind in crate::PhraseKind::ALL {
            prop_assert!(!lib.phrases(kind).is_empty());
        }
    }

    #[test]
    fn phrase_library_soup(s in "(## |- |\\* |[a-z]{0,6}|\\{|\\}|agent|micro|closing|\n| ){0,40}") {
        let (lib, _) = PhraseLibrary::parse(&s);
        for kind in crate::PhraseKind::ALL {
            for p in lib.phrases(kind) {
                let rendered = crate::phrases::render(p, &Default::default());
                prop_assert!(!rendered.contains('{'), "{}", rendered);
            }
        }
    }

    #[test]
    fn panel_yaml_never_panics(s in "\\PC{0,200}") {
        let _ = PanelConfig::from_yaml(&s);
    }

    #[test]
    fn panel_yaml_soup(s in "(agents:|intensity: |mode: |friendly|free_flow|thresholds:|  - name: a|    role: skeptic|max_hands_raised: [0-9]|\n|  ){0,20}") {
        if let Ok(c) = PanelConfig::from_yaml(&s) {
            prop_assert!(c.validate().is_ok());
        }
    }
}
