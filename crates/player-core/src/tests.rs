use proptest::prelude::*;

use super::*;

const RATE: u32 = 1000; // 1 sample = 1 ms keeps the arithmetic readable
const BLOCK: usize = 20;

fn player() -> Player {
    Player::new(PlayerConfig {
        sample_rate: RATE,
        fade_samples: 5,
    })
}

fn segment(q: u64, index: u32, last: bool, text: &str) -> PlayerInput {
    PlayerInput::Segment {
        speaker: format!("s{q}"),
        question_id: q,
        index,
        last,
        text: text.into(),
    }
}

fn audio(q: u64, index: u32, len: usize, level: f32) -> PlayerInput {
    PlayerInput::Audio {
        question_id: q,
        index,
        samples: vec![level; len],
    }
}

/// Renders `blocks` blocks; returns (samples, events, audible question id per block).
fn play(p: &mut Player, blocks: usize) -> (Vec<f32>, Vec<PlayerEvent>, Vec<Option<u64>>) {
    let mut samples = Vec::new();
    let mut events = Vec::new();
    let mut who = Vec::new();
    for _ in 0..blocks {
        let mut block = [0.0; BLOCK];
        let r = p.render(&mut block);
        samples.extend_from_slice(&block);
        events.extend(r.events);
        who.push(r.speaker.map(|(_, q)| q));
    }
    (samples, events, who)
}

fn done(events: &[PlayerEvent]) -> Vec<TimelineRecord> {
    events
        .iter()
        .filter_map(|e| match e {
            PlayerEvent::PlaybackDone(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn plays_in_order_with_gaps_and_records_the_timeline() {
    let mut p = player();
    let asks = p.handle(segment(1, 0, false, "Hello there."));
    assert!(matches!(
        &asks[..],
        [PlayerEvent::Synthesize { index: 0, .. }]
    ));
    // Nothing synthesized yet: silence, recorded as a gap.
    let (samples, _, _) = play(&mut p, 2);
    assert!(samples.iter().all(|s| *s == 0.0));
    p.handle(audio(1, 0, 30, 0.5));
    p.handle(segment(1, 1, true, "Bye."));
    p.handle(audio(1, 1, 10, 0.25));
    let (samples, events, _) = play(&mut p, 3);
    assert_eq!(samples.iter().filter(|s| **s == 0.5).count(), 30);
    assert_eq!(samples.iter().filter(|s| **s == 0.25).count(), 10);
    assert!(matches!(
        events[0],
        PlayerEvent::PlaybackStarted { at_ms: 40, .. }
    ));
    let records = done(&events);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].start_ms, 40);
    assert_eq!(records[0].end_ms, 80);
    assert!(!records[0].interrupted);
    assert_eq!(records[0].text_played, "Hello there. Bye.");
    assert_eq!(records[0].chars_played, 16);
}

#[test]
fn utterances_play_in_question_id_order() {
    let mut p = player();
    p.handle(segment(2, 0, true, "Second."));
    p.handle(audio(2, 0, 10, 0.2));
    p.handle(segment(1, 0, true, "First."));
    // q1's audio is late: q2 must wait, even though it is ready.
    let (samples, _, _) = play(&mut p, 1);
    assert!(samples.iter().all(|s| *s == 0.0));
    p.handle(audio(1, 0, 10, 0.1));
    let (samples, events, _) = play(&mut p, 2);
    assert_eq!(&samples[..10], &[0.1; 10]);
    assert_eq!(&samples[10..20], &[0.2; 10]);
    let order: Vec<u64> = done(&events).iter().map(|r| r.question_id).collect();
    assert_eq!(order, [1, 2]);
}

#[test]
fn interrupt_stops_within_one_block_and_reports_what_was_heard() {
    let mut p = player();
    p.handle(segment(
        1,
        0,
        false,
        "one two three four five six seven eight nine ten",
    ));
    p.handle(audio(1, 0, 100, 0.5));
    p.handle(segment(1, 1, true, "Never heard."));
    p.handle(audio(1, 1, 50, 0.5));
    p.handle(segment(2, 0, true, "Queued and stale."));
    p.handle(audio(2, 0, 50, 0.3));
    play(&mut p, 2); // 40 of 100 samples of the first segment
    let events = p.handle(PlayerInput::Interrupt { question_id: 3 });
    let records = done(&events);
    assert_eq!(records.len(), 1, "only the started utterance gets a record");
    assert!(records[0].interrupted);
    assert_eq!(records[0].text_played, "one two three four");
    // The next block is a short fade, then silence for good.
    let (samples, _, who) = play(&mut p, 3);
    assert!(samples[5..].iter().all(|s| *s == 0.0), "{samples:?}");
    assert!(samples[0] > 0.0 && samples[4] < samples[0]);
    assert!(who.iter().all(Option::is_none));
    // Late segments of stale questions are ignored.
    assert!(p.handle(segment(2, 1, true, "late")).is_empty());
    assert!(!p.is_busy());
}

#[test]
fn failed_synthesis_is_skipped_and_silent_utterances_still_end() {
    let mut p = player();
    p.handle(segment(1, 0, false, "Broken."));
    p.handle(segment(1, 1, true, "Works."));
    let skipped = p.handle(PlayerInput::SynthesisFailed {
        question_id: 1,
        index: 0,
        error: "boom".into(),
    });
    assert!(matches!(&skipped[..], [PlayerEvent::Skipped { .. }]));
    p.handle(audio(1, 1, 10, 0.5));
    p.handle(segment(2, 0, true, ""));
    let (_, events, _) = play(&mut p, 2);
    let records = done(&events);
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].text_played, "Works.");
    assert_eq!((records[1].question_id, records[1].chars_played), (2, 0));
    assert!(!p.is_busy());
}

#[test]
fn pause_holds_and_resume_continues_where_it_stopped() {
    let mut p = player();
    p.handle(segment(1, 0, true, "one two three four"));
    p.handle(PlayerInput::Audio {
        question_id: 1,
        index: 0,
        samples: (0..100).map(|i| i as f32 / 1000.0 + 0.1).collect(),
    });
    let (first, _, _) = play(&mut p, 1);
    p.handle(PlayerInput::Pause);
    let (held, _, who) = play(&mut p, 3);
    assert!(
        held[5..].iter().all(|s| *s == 0.0),
        "muted after a 5-sample fade"
    );
    assert!(who.iter().all(Option::is_none));
    p.handle(PlayerInput::Resume);
    let (rest, events, _) = play(&mut p, 5);
    // Resumes at sample 20: nothing skipped, nothing repeated.
    assert_eq!(rest[0], first[19] + 0.001);
    assert_eq!(done(&events)[0].text_played, "one two three four");
    // An unresolved pause ends by itself.
    p.handle(segment(2, 0, true, "x"));
    p.handle(audio(2, 0, 10, 0.5));
    p.handle(PlayerInput::Pause);
    let (samples, _, _) = play(&mut p, (PAUSE_LIMIT_SECS as usize * 1000) / BLOCK + 2);
    assert!(samples.contains(&0.5));
}

proptest! {
    /// Whatever arrives in whatever order: one voice at a time, question ids never go
    /// back, and nothing older than an interrupt is audible after the block that follows
    /// it (the fade).
    #[test]
    fn one_voice_in_order_and_silent_after_interrupts(
        ops in prop::collection::vec((0u8..4, 1u64..6, 0u32..3, 1usize..60), 1..80)
    ) {
        let mut p = player();
        let mut floor = 0;
        let mut last_audible = 0;
        let mut fade_block = false;
        for (op, q, index, len) in ops {
            match op {
                0 => { p.handle(segment(q, index, index == 2, "word word")); }
                1 => { p.handle(audio(q, index, len, 0.5)); }
                2 => { floor = floor.max(q); p.handle(PlayerInput::Interrupt { question_id: q }); fade_block = true; }
                _ => {
                    let mut block = [0.0; BLOCK];
                    let r = p.render(&mut block);
                    if let Some((_, audible)) = r.speaker {
                        prop_assert!(audible >= floor, "stale q{audible} audible after interrupt {floor}");
                        prop_assert!(audible >= last_audible, "went back from q{last_audible} to q{audible}");
                        last_audible = audible;
                    } else if !fade_block {
                        prop_assert!(block.iter().all(|s| *s == 0.0 || *s == 0.5));
                    }
                    fade_block = false;
                }
            }
        }
    }
}
