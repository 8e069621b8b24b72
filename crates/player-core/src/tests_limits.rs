//! The player's memory bounds: how many utterances and segments it holds, whatever arrives.

use proptest::prelude::*;

use super::*;

const RATE: u32 = 1000;

fn player() -> Player {
    Player::new(PlayerConfig {
        sample_rate: RATE,
        fade_samples: 5,
    })
}

fn segment(q: u64, index: u32, last: bool) -> PlayerInput {
    PlayerInput::Segment {
        speaker: format!("s{q}"),
        question_id: q,
        index,
        last,
        text: format!("sentence {index} of {q}."),
    }
}

fn synthesized(events: &[PlayerOutput]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, PlayerOutput::Synthesize { .. }))
        .count()
}

fn refusals(events: &[PlayerOutput]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            PlayerOutput::Skipped { error, .. } if error.starts_with("refused") => {
                Some(error.clone())
            }
            _ => None,
        })
        .collect()
}

fn done_ids(events: &[PlayerOutput]) -> Vec<u64> {
    events
        .iter()
        .filter_map(|e| match e {
            PlayerOutput::Played(r) => Some(r.question_id),
            _ => None,
        })
        .collect()
}

fn render(p: &mut Player, blocks: usize) -> Vec<PlayerOutput> {
    let mut events = Vec::new();
    for _ in 0..blocks {
        let mut block = [0.0; 20];
        events.extend(p.render(&mut block).events);
    }
    events
}

#[test]
fn a_flood_of_question_ids_is_refused_past_the_cap_and_reported_done() {
    let mut p = player();
    let mut events = Vec::new();
    for q in 1..=10_000 {
        events.extend(p.handle(segment(q, 0, false)));
    }
    assert_eq!(p.queue.len(), MAX_QUEUED_UTTERANCES);
    assert_eq!(synthesized(&events), MAX_QUEUED_UTTERANCES);
    let refused = refusals(&events);
    assert_eq!(refused.len(), 10_000 - MAX_QUEUED_UTTERANCES);
    assert!(
        refused[0].contains("MAX_QUEUED_UTTERANCES"),
        "{}",
        refused[0]
    );
    // Whoever waits for a refused utterance learns that it is over.
    let done = done_ids(&events);
    assert_eq!(done.len(), refused.len());
    assert_eq!(done[0], MAX_QUEUED_UTTERANCES as u64 + 1);
    assert!(p.refused.len() <= MAX_QUEUED_UTTERANCES);
    // A later segment of a refused utterance is dropped without a word: never half-played.
    assert!(p.handle(segment(10_000, 1, true)).is_empty());
    assert_eq!(p.queue.len(), MAX_QUEUED_UTTERANCES);

    // The queue still plays in question-id order: the first utterance sounds.
    p.handle(segment(1, 1, true));
    p.handle(PlayerInput::Audio {
        question_id: 1,
        index: 0,
        samples: vec![0.5; 30],
    });
    p.handle(PlayerInput::Audio {
        question_id: 1,
        index: 1,
        samples: vec![0.5; 30],
    });
    let played = render(&mut p, 5);
    assert_eq!(done_ids(&played), [1]);

    // An interrupt drops everything older (the stale rule stands), and the conversation
    // goes on with the next utterance.
    p.handle(PlayerInput::Interrupt {
        question_id: 20_000,
    });
    assert!(p.queue.is_empty());
    assert!(
        p.handle(segment(15_000, 0, true)).is_empty(),
        "stale, not refused"
    );
    let next = p.handle(segment(20_001, 0, true));
    assert_eq!(synthesized(&next), 1);
    assert!(refusals(&next).is_empty());
}

#[test]
fn an_utterance_of_ten_thousand_segments_ends_at_the_cap() {
    let mut p = player();
    let mut events = Vec::new();
    for index in 0..10_000 {
        events.extend(p.handle(segment(1, index, index == 9_999)));
    }
    assert_eq!(synthesized(&events), MAX_SEGMENTS_PER_UTTERANCE);
    assert_eq!(refusals(&events).len(), 10_000 - MAX_SEGMENTS_PER_UTTERANCE);
    assert!(refusals(&events)[0].contains("MAX_SEGMENTS_PER_UTTERANCE"));
    let utterance = &p.queue[&1];
    assert_eq!(utterance.segments.len(), MAX_SEGMENTS_PER_UTTERANCE);
    assert_eq!(
        utterance.last_index,
        Some(MAX_SEGMENTS_PER_UTTERANCE as u32 - 1)
    );
    // Once its audio is there it plays to its end, and the next utterance follows.
    for index in 0..MAX_SEGMENTS_PER_UTTERANCE as u32 {
        p.handle(PlayerInput::Audio {
            question_id: 1,
            index,
            samples: vec![0.1; 2],
        });
    }
    p.handle(segment(2, 0, true));
    p.handle(PlayerInput::Audio {
        question_id: 2,
        index: 0,
        samples: vec![0.1; 10],
    });
    let played = render(&mut p, 100);
    assert_eq!(done_ids(&played), [1, 2]);
    assert!(p.queue.is_empty());
}

#[derive(Debug, Clone)]
enum Step {
    Segment { q: u64, index: u32, last: bool },
    Audio { q: u64, index: u32 },
    Interrupt { q: u64 },
    Render,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (1u64..80, 0u32..700, any::<bool>())
            .prop_map(|(q, index, last)| Step::Segment { q, index, last }),
        3 => (1u64..80, 0u32..700).prop_map(|(q, index)| Step::Audio { q, index }),
        1 => (1u64..90).prop_map(|q| Step::Interrupt { q }),
        2 => Just(Step::Render),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_queue_never_grows_past_its_caps(steps in prop::collection::vec(step(), 0..3_000)) {
        let mut p = player();
        let mut newest_interrupt = 0;
        for step in steps {
            let events = match step {
                Step::Segment { q, index, last } => p.handle(segment(q, index, last)),
                Step::Audio { q, index } => p.handle(PlayerInput::Audio {
                    question_id: q,
                    index,
                    samples: vec![0.2; 7],
                }),
                Step::Interrupt { q } => {
                    newest_interrupt = newest_interrupt.max(q);
                    p.handle(PlayerInput::Interrupt { question_id: q })
                }
                Step::Render => render(&mut p, 1),
            };
            prop_assert!(p.queue.len() <= MAX_QUEUED_UTTERANCES);
            prop_assert!(p.refused.len() <= MAX_QUEUED_UTTERANCES);
            for utterance in p.queue.values() {
                prop_assert!(utterance.segments.len() <= MAX_SEGMENTS_PER_UTTERANCE);
            }
            // Nothing older than the newest interrupt is ever asked for.
            for e in &events {
                if let PlayerOutput::Synthesize { question_id, .. } = e {
                    prop_assert!(*question_id >= newest_interrupt);
                }
            }
        }
    }
}
