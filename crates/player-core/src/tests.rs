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
fn play(p: &mut Player, blocks: usize) -> (Vec<f32>, Vec<PlayerOutput>, Vec<Option<u64>>) {
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

fn done(events: &[PlayerOutput]) -> Vec<TimelineRecord> {
    events
        .iter()
        .filter_map(|e| match e {
            PlayerOutput::Played(r) => Some(r.clone()),
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
        [PlayerOutput::Synthesize { index: 0, .. }]
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
        PlayerOutput::PlaybackStarted { at_ms: 40, .. }
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
    assert!(matches!(&skipped[..], [PlayerOutput::Skipped { .. }]));
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

#[test]
fn an_answer_coming_voices_its_openers_first_and_leaves_the_hold_alone() {
    let mut p = player();
    p.handle(segment(1, 0, true, "one two three four"));
    p.handle(audio(1, 0, 100, 0.5));
    play(&mut p, 1);
    p.handle(PlayerInput::Pause);
    let ahead = p.handle(PlayerInput::AnswerComing {
        speaker: "tutor".into(),
    });
    let texts: Vec<&str> = ahead
        .iter()
        .map(|event| match event {
            PlayerOutput::VoiceAhead { speaker, text } => {
                assert_eq!(speaker, "tutor");
                text.as_str()
            }
            other => panic!("only phrases to voice ahead, not {other:?}"),
        })
        .collect();
    assert_eq!(texts, voice_protocol::openers::FIRST_CHOICES);
    // Still held: a backchannel lets the same line go on.
    assert!(p.is_held());
    p.handle(PlayerInput::Resume);
    let (_, events, _) = play(&mut p, 10);
    assert_eq!(done(&events)[0].text_played, "one two three four");
}

#[test]
fn an_interrupt_after_a_pause_fades_nothing_twice() {
    let mut p = player();
    p.handle(segment(1, 0, true, "one two three four"));
    p.handle(PlayerInput::Audio {
        question_id: 1,
        index: 0,
        samples: vec![0.5; 100],
    });
    play(&mut p, 3);
    // The hold says what an interrupt would leave heard (60 of 100 samples: three of the
    // four words' characters, cut at a word)...
    let on_hold = p.handle(PlayerInput::Pause);
    assert_eq!(
        on_hold,
        [PlayerOutput::Held {
            speaker: "s1".into(),
            question_id: 1,
            heard: "one two".into(),
        }]
    );
    // ...fades the voice out once...
    let (held, _, _) = play(&mut p, 1);
    assert!(held[..5].iter().any(|s| *s != 0.0) && held[5..].iter().all(|s| *s == 0.0));
    // ...and the question that follows drops it without sounding it again, reporting
    // what the hold said.
    let events = p.handle(PlayerInput::Interrupt { question_id: 2 });
    assert!(!p.is_fading(), "a second fade would replay the held voice");
    let (after, _, _) = play(&mut p, 2);
    assert!(after.iter().all(|s| *s == 0.0));
    assert!(done(&events)[0].interrupted);
    assert_eq!(done(&events)[0].text_played, "one two");
    // Held while nothing sounds: nothing to say but that no answer is coming.
    assert_eq!(
        p.handle(PlayerInput::Resume),
        [PlayerOutput::AnswerNotComing]
    );
    assert!(p.handle(PlayerInput::Pause).is_empty());
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

// ----- clip mode -----------------------------------------------------------------------

use voice_protocol::clips::{ClipCommand, ClipSpec};

fn clip(p: &mut Player, id: &str, sentences: &[(&str, usize)], level: f32) -> Vec<PlayerOutput> {
    let mut events = p.handle(PlayerInput::Clip(ClipSpec {
        clip_id: id.into(),
        speaker: format!("who-{id}"),
        question_id: 1,
        sentences: sentences.iter().map(|(t, _)| (*t).to_owned()).collect(),
        ready_at_first_sentence: false,
    }));
    for (i, (_, len)) in sentences.iter().enumerate() {
        events.extend(p.handle(PlayerInput::ClipAudio {
            clip_id: id.into(),
            index: i as u32,
            samples: vec![level; *len],
        }));
    }
    events
}

fn cmd(p: &mut Player, c: ClipCommand) -> Vec<PlayerOutput> {
    p.handle(PlayerInput::Command(c))
}

fn play_id(id: &str) -> ClipCommand {
    ClipCommand::Play { clip_id: id.into() }
}

fn finished(events: &[PlayerOutput]) -> Vec<voice_protocol::clips::ClipFinished> {
    events
        .iter()
        .filter_map(|e| match e {
            PlayerOutput::ClipFinished(f) => Some(f.clone()),
            _ => None,
        })
        .collect()
}

fn render_n(p: &mut Player, blocks: usize) -> (Vec<f32>, Vec<PlayerOutput>, Vec<Rendered>) {
    let mut samples = Vec::new();
    let mut events = Vec::new();
    let mut all = Vec::new();
    for _ in 0..blocks {
        let mut block = [0.0; BLOCK];
        let r = p.render(&mut block);
        samples.extend_from_slice(&block);
        events.extend(r.events.clone());
        all.push(r);
    }
    (samples, events, all)
}

#[test]
fn a_clip_is_held_until_played_and_reports_start_beats_and_end() {
    let mut p = player();
    let ready = clip(&mut p, "c1", &[("One two.", 30), ("Three four.", 25)], 0.5);
    let r = ready
        .iter()
        .find_map(|e| match e {
            PlayerOutput::ClipReady(r) => Some(r.clone()),
            _ => None,
        })
        .expect("ready once synthesized");
    assert_eq!(
        (r.sentence_ms.clone(), r.duration_ms, r.error),
        (vec![30, 25], 55, None)
    );
    // Held: silence.
    let (samples, events, _) = render_n(&mut p, 2);
    assert!(samples.iter().all(|s| *s == 0.0) && events.is_empty());
    cmd(&mut p, play_id("c1"));
    let (samples, events, _) = render_n(&mut p, 4);
    assert_eq!(samples.iter().filter(|s| **s == 0.5).count(), 55);
    let started = events.iter().find_map(|e| match e {
        PlayerOutput::ClipStarted(s) => Some(s.at_ms),
        _ => None,
    });
    assert_eq!(started, Some(40));
    let beats: Vec<(u32, u64)> = events
        .iter()
        .filter_map(|e| match e {
            PlayerOutput::Beat(b) => Some((b.beat, b.at_ms)),
            _ => None,
        })
        .collect();
    assert_eq!(beats, [(1, 70)], "measured at the end of sentence 1");
    let f = finished(&events);
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].start_ms, f[0].end_ms, f[0].interrupted),
        (40, 95, false)
    );
    assert_eq!(f[0].text_played, "One two. Three four.");
    assert!(!p.is_busy());
}

#[test]
fn a_pause_holds_a_sounding_clip_after_a_fade_and_a_resume_goes_on_from_there() {
    let mut p = player();
    clip(&mut p, "c1", &[("One two.", 30), ("Three four.", 25)], 0.5);
    cmd(&mut p, play_id("c1"));
    let (first, _, _) = render_n(&mut p, 1);
    assert!(first.iter().all(|s| *s == 0.5));
    assert!(p.handle(PlayerInput::Pause).is_empty());
    assert!(p.is_held() && p.is_fading());
    let (held, events, _) = render_n(&mut p, 10);
    // The fade's 5 samples fall to silence, then silence: the clip is not over.
    assert!(
        held[..5].iter().all(|s| (0.0..=0.5).contains(s)),
        "{held:?}"
    );
    assert!(held[4] < 0.5 && held[5..].iter().all(|s| *s == 0.0));
    assert!(finished(&events).is_empty(), "{events:?}");
    assert!(p.is_busy());
    p.handle(PlayerInput::Resume);
    let (rest, events, _) = render_n(&mut p, 3);
    assert_eq!(
        rest.iter().filter(|s| **s == 0.5).count(),
        55 - 20 - 5,
        "on from where the fade left it"
    );
    let f = finished(&events);
    assert_eq!(f.len(), 1);
    assert!(!f[0].interrupted);
    assert_eq!(f[0].text_played, "One two. Three four.");
}

#[test]
fn a_second_main_clip_waits_for_the_first() {
    let mut p = player();
    clip(&mut p, "a", &[("A.", 30)], 0.5);
    clip(&mut p, "b", &[("B.", 10)], 0.25);
    cmd(&mut p, play_id("a"));
    cmd(&mut p, play_id("b"));
    let (samples, events, _) = render_n(&mut p, 3);
    assert_eq!(&samples[..30], &[0.5; 30]);
    assert_eq!(&samples[30..40], &[0.25; 10]);
    let f = finished(&events);
    assert_eq!(f[0].end_ms, f[1].start_ms);
}

#[test]
fn an_overlay_sounds_over_a_ducked_main_and_releases_the_duck() {
    let mut p = player();
    clip(
        &mut p,
        "main",
        &[("Main one.", 100), ("Main two.", 100)],
        0.8,
    );
    clip(&mut p, "over", &[("Sure.", 30)], 0.1);
    cmd(&mut p, play_id("main"));
    render_n(&mut p, 1);
    assert!(
        cmd(
            &mut p,
            ClipCommand::Duck {
                clip_id: "main".into(),
                gain_db: -12.0,
                ramp_ms: 5
            }
        )
        .is_empty()
    );
    // No double duck.
    let refused = cmd(
        &mut p,
        ClipCommand::Duck {
            clip_id: "main".into(),
            gain_db: -6.0,
            ramp_ms: 5,
        },
    );
    assert!(matches!(&refused[..], [PlayerOutput::ClipRefused { .. }]));
    cmd(
        &mut p,
        ClipCommand::PlayOverlay {
            clip_id: "over".into(),
        },
    );
    let (_, events, rendered) = render_n(&mut p, 12);
    let duck = 10f32.powf(-12.0 / 20.0);
    let max_under = rendered
        .iter()
        .filter_map(|r| r.audit.max_main_gain_under_overlay)
        .fold(0.0f32, f32::max);
    assert!(max_under > 0.0 && max_under <= duck + 1e-4, "{max_under}");
    let f = finished(&events);
    let over = f.iter().find(|c| c.overlay).expect("overlay finished");
    let main = f.iter().find(|c| !c.overlay).expect("main finished");
    assert_eq!(main.ducked.len(), 1);
    let [from, to] = main.ducked[0];
    assert!(
        from <= over.start_ms && over.end_ms <= to,
        "{main:?} {over:?}"
    );
    assert!(!main.interrupted);
}

#[test]
fn a_cancelled_overlay_never_ducks() {
    let mut p = player();
    clip(&mut p, "main", &[("Main.", 100)], 0.8);
    // The overlay is prepared but its audio never arrives, then it is discarded.
    p.handle(PlayerInput::Clip(ClipSpec {
        clip_id: "late".into(),
        speaker: "x".into(),
        question_id: 2,
        sentences: vec!["Late.".into()],
        ready_at_first_sentence: false,
    }));
    cmd(&mut p, play_id("main"));
    cmd(
        &mut p,
        ClipCommand::Duck {
            clip_id: "main".into(),
            gain_db: -12.0,
            ramp_ms: 5,
        },
    );
    cmd(
        &mut p,
        ClipCommand::PlayOverlay {
            clip_id: "late".into(),
        },
    );
    let (samples, _, _) = render_n(&mut p, 2);
    cmd(
        &mut p,
        ClipCommand::Discard {
            clip_id: "late".into(),
        },
    );
    let (rest, events, _) = render_n(&mut p, 5);
    assert!(samples.iter().chain(&rest).all(|s| *s == 0.8 || *s == 0.0));
    assert!(finished(&events)[0].ducked.is_empty());
}

#[test]
fn fade_out_then_fade_in_never_overlap() {
    let mut p = player();
    clip(&mut p, "seg", &[("Long sentence here.", 200)], 0.5);
    clip(&mut p, "kick", &[("Hold on.", 40)], 0.3);
    cmd(&mut p, play_id("seg"));
    render_n(&mut p, 2);
    cmd(
        &mut p,
        ClipCommand::FadeOut {
            clip_id: "seg".into(),
            fade_ms: 20,
        },
    );
    cmd(
        &mut p,
        ClipCommand::FadeIn {
            clip_id: "kick".into(),
            delay_ms: 20,
            fade_ms: 10,
        },
    );
    let (samples, events, _) = render_n(&mut p, 6);
    let f = finished(&events);
    assert_eq!(f.len(), 2);
    assert!(f[0].interrupted && f[0].clip_id == "seg");
    assert!(f[0].end_ms <= f[1].start_ms, "{f:?}");
    assert!(!f[1].interrupted);
    // The fade-out decreases to silence.
    assert!(samples[0] <= 0.5 && samples[18] < samples[0]);
    assert_eq!(f[0].text_played, "Long", "what was heard, in whole words");
}

#[test]
fn clip_mode_leaves_utterances_alone() {
    let mut p = player();
    p.handle(segment(1, 0, true, "Utterance."));
    p.handle(audio(1, 0, 20, 0.4));
    clip(&mut p, "c", &[("Clip.", 20)], 0.6);
    let (samples, events, _) = render_n(&mut p, 2);
    assert_eq!(samples.iter().filter(|s| **s == 0.4).count(), 20);
    assert_eq!(done(&events).len(), 1);
    // Unknown clips are refused, not fatal.
    assert!(matches!(
        &cmd(&mut p, play_id("nope"))[..],
        [PlayerOutput::ClipRefused { .. }]
    ));
    assert!(matches!(
        &cmd(
            &mut p,
            ClipCommand::FadeOut {
                clip_id: "nope".into(),
                fade_ms: 5
            }
        )[..],
        [PlayerOutput::ClipRefused { .. }]
    ));
}

#[test]
fn failed_sentences_are_skipped_and_an_all_failed_clip_reports_an_error() {
    let mut p = player();
    p.handle(PlayerInput::Clip(ClipSpec {
        clip_id: "f".into(),
        speaker: "x".into(),
        question_id: 1,
        sentences: vec!["Bad.".into()],
        ready_at_first_sentence: false,
    }));
    let events = p.handle(PlayerInput::ClipSynthesisFailed {
        clip_id: "f".into(),
        index: 0,
        error: "boom".into(),
    });
    assert!(
        events
            .iter()
            .any(|e| matches!(e, PlayerOutput::ClipReady(r) if r.error.is_some()))
    );
    let empty = p.handle(PlayerInput::Clip(ClipSpec {
        clip_id: "e".into(),
        speaker: "x".into(),
        question_id: 1,
        sentences: vec!["  ".into()],
        ready_at_first_sentence: false,
    }));
    assert!(matches!(&empty[..], [PlayerOutput::ClipReady(r)] if r.error.is_some()));
}

fn ready(events: &[PlayerOutput]) -> Vec<voice_protocol::clips::ClipReady> {
    events
        .iter()
        .filter_map(|e| match e {
            PlayerOutput::ClipReady(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_clip_asked_ready_at_its_first_sentence_plays_while_the_rest_is_synthesized() {
    let mut p = player();
    let spec = |id: &str| ClipSpec {
        clip_id: id.into(),
        speaker: "hawk".into(),
        question_id: 3,
        sentences: vec!["One two.".into(), "Three four.".into(), "Five.".into()],
        ready_at_first_sentence: true,
    };
    assert!(ready(&p.handle(PlayerInput::Clip(spec("s")))).is_empty());
    let audio = |p: &mut Player, index: u32, len: usize| {
        p.handle(PlayerInput::ClipAudio {
            clip_id: "s".into(),
            index,
            samples: vec![0.5; len],
        })
    };
    // The second sentence first: the first is still missing, nothing is ready.
    assert!(ready(&audio(&mut p, 1, 160)).is_empty());
    let first = ready(&audio(&mut p, 0, 320));
    assert_eq!(first.len(), 1, "ready once its beginning sounds");
    let r = &first[0];
    assert_eq!(
        (r.sentence_ms.len(), r.pending, r.error.as_deref()),
        (2, 1, None)
    );
    assert_eq!(r.duration_ms, r.sentence_ms.iter().sum::<u64>());
    // It plays now; the last sentence comes while the first two sound, and is heard.
    cmd(&mut p, play_id("s"));
    let (_, mut events, _) = render_n(&mut p, 2);
    assert!(
        ready(&audio(&mut p, 2, 80)).is_empty(),
        "ready is said once"
    );
    let (_, more, _) = render_n(&mut p, 40);
    events.extend(more);
    let done = finished(&events);
    assert_eq!(done.len(), 1, "{events:?}");
    assert_eq!(done[0].text_played, "One two. Three four. Five.");
    assert!(!done[0].interrupted);
    // A clip whose first sentence fails waits for one that sounds.
    let mut p = player();
    p.handle(PlayerInput::Clip(spec("f")));
    let failed = p.handle(PlayerInput::ClipSynthesisFailed {
        clip_id: "f".into(),
        index: 0,
        error: "boom".into(),
    });
    assert!(ready(&failed).is_empty());
    let later = ready(&p.handle(PlayerInput::ClipAudio {
        clip_id: "f".into(),
        index: 1,
        samples: vec![0.5; 160],
    }));
    assert_eq!(later.len(), 1);
    assert_eq!((later[0].sentence_ms[0], later[0].pending), (0, 1));
}

#[test]
fn a_long_sentence_of_a_clip_played_from_its_first_sentence_sounds_from_its_first_phrase() {
    let mut p = player();
    let long = "The city should ban cars from the old town because it would make traffic \
                worse for everyone.";
    let out = p.handle(PlayerInput::Clip(ClipSpec {
        clip_id: "s".into(),
        speaker: "hawk".into(),
        question_id: 3,
        sentences: vec![long.into(), "Then we vote.".into()],
        ready_at_first_sentence: true,
    }));
    // Synthesized as phrases: the long sentence in two, the short one whole.
    let texts: Vec<String> = out
        .iter()
        .filter_map(|o| match o {
            PlayerOutput::SynthesizeClip { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        texts,
        [
            "The city should ban cars from the old town",
            "because it would make traffic worse for everyone.",
            "Then we vote."
        ]
    );
    let audio = |p: &mut Player, index: u32| {
        p.handle(PlayerInput::ClipAudio {
            clip_id: "s".into(),
            index,
            samples: vec![0.5; 160],
        })
    };
    // Ready at its first phrase, no sentence of it whole yet: both are pending.
    let first = ready(&audio(&mut p, 0));
    assert_eq!(first.len(), 1);
    assert_eq!((first[0].sentence_ms.len(), first[0].pending), (0, 2));
    cmd(&mut p, play_id("s"));
    let mut events = audio(&mut p, 1);
    events.extend(audio(&mut p, 2));
    let (_, more, _) = render_n(&mut p, 40);
    events.extend(more);
    // One beat, where the sentence ends, not where its first phrase does.
    let beats: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            PlayerOutput::Beat(b) => Some(b.beat),
            _ => None,
        })
        .collect();
    assert_eq!(beats, [1]);
    let done = finished(&events);
    assert_eq!(done.len(), 1, "{events:?}");
    assert_eq!(done[0].text_played, format!("{long} Then we vote."));
    // A clip prepared whole (a kicker) keeps its sentences whole.
    let out = p.handle(PlayerInput::Clip(ClipSpec {
        clip_id: "k".into(),
        speaker: "dove".into(),
        question_id: 4,
        sentences: vec![long.into()],
        ready_at_first_sentence: false,
    }));
    let synthesized = out
        .iter()
        .filter(|o| matches!(o, PlayerOutput::SynthesizeClip { .. }))
        .count();
    assert_eq!(synthesized, 1);
}

proptest! {
    /// Whatever commands arrive, in whatever order: never two main voices at once; an
    /// overlay sounds only over a main voice held at (or below) its duck gain; a clip is
    /// never ducked twice at a time; an overlay that never became ready never ducks; a
    /// human's hold (pause, resume) in between changes none of it.
    #[test]
    fn clip_commands_keep_the_audio_rules(
        ops in prop::collection::vec((0u8..11, 0usize..4, 1u64..40), 1..60)
    ) {
        let ids = ["a", "b", "c", "d"];
        let mut p = player();
        // "d" is prepared but its audio never comes: it can never sound.
        for id in &ids[..3] {
            clip(&mut p, id, &[("One two.", 37), ("Three.", 23)], 0.5);
        }
        p.handle(PlayerInput::Clip(ClipSpec { clip_id: "d".into(), speaker: "d".into(), question_id: 9, sentences: vec!["Never.".into()], ready_at_first_sentence: false }));
        let duck = 10f32.powf(-12.0 / 20.0);
        let mut all = Vec::new();
        for (op, i, ms) in ops {
            let id = ids[i].to_owned();
            let c = match op {
                0 => Some(ClipCommand::Play { clip_id: id }),
                1 => Some(ClipCommand::PlayOverlay { clip_id: id }),
                2 => Some(ClipCommand::Duck { clip_id: id, gain_db: -12.0, ramp_ms: ms % 10 }),
                3 => Some(ClipCommand::Unduck { clip_id: id, ramp_ms: ms % 10 }),
                4 => Some(ClipCommand::FadeOut { clip_id: id, fade_ms: ms }),
                5 => Some(ClipCommand::FadeIn { clip_id: id, delay_ms: ms, fade_ms: ms / 2 }),
                6 => Some(ClipCommand::Discard { clip_id: id }),
                _ => None,
            };
            if let Some(c) = c {
                all.extend(p.handle(PlayerInput::Command(c)));
            }
            match op {
                9 => all.extend(p.handle(PlayerInput::Pause)),
                10 => all.extend(p.handle(PlayerInput::Resume)),
                _ => {}
            }
            let mut block = [0.0; BLOCK];
            let r = p.render(&mut block);
            if let Some(g) = r.audit.max_main_gain_under_overlay {
                prop_assert!(g <= duck + 1e-4, "main at gain {g} under an overlay");
            }
            all.extend(r.events);
        }
        all.extend(p.handle(PlayerInput::Resume));
        for _ in 0..40 {
            let mut block = [0.0; BLOCK];
            all.extend(p.render(&mut block).events);
        }
        let f = finished(&all);
        prop_assert!(f.iter().all(|c| c.clip_id != "d"), "an unready clip sounded");
        let mains: Vec<_> = f.iter().filter(|c| !c.overlay).collect();
        for (i, a) in mains.iter().enumerate() {
            for b in &mains[i + 1..] {
                prop_assert!(a.end_ms <= b.start_ms || b.end_ms <= a.start_ms, "{a:?} overlaps {b:?}");
            }
            // Duck windows never overlap each other (no double duck).
            for w in a.ducked.windows(2) {
                prop_assert!(w[0][1] <= w[1][0]);
            }
        }
        for o in f.iter().filter(|c| c.overlay) {
            for m in &mains {
                let s = o.start_ms.max(m.start_ms);
                let e = o.end_ms.min(m.end_ms);
                if s < e {
                    prop_assert!(m.ducked.iter().any(|[from, to]| *from <= s && e <= *to), "{o:?} over an unducked {m:?}");
                }
            }
        }
    }
}

#[test]
fn a_restarted_player_times_its_timeline_from_where_the_recording_stops() {
    let mut p = player();
    p.resume_at(5_000);
    assert_eq!(p.now_ms(), 5_000);
    p.handle(segment(7, 0, true, "Back again."));
    p.handle(audio(7, 0, 10, 0.5));
    let (_, events, _) = play(&mut p, 1);
    let records = done(&events);
    assert_eq!(records[0].start_ms, 5_000);
    assert_eq!(records[0].end_ms, 5_010);
}

#[test]
fn a_restarted_player_plays_an_utterance_whose_start_went_to_the_player_that_died() {
    let mut p = player();
    p.resume_at(5_000);
    // Sentences 0 and 1 of turn 7 went to the killed player.
    p.handle(segment(7, 2, false, "The rest of it."));
    p.handle(audio(7, 2, 10, 0.5));
    p.handle(segment(7, 3, true, "The end."));
    p.handle(audio(7, 3, 10, 0.25));
    p.handle(segment(9, 0, true, "Next turn."));
    p.handle(audio(9, 0, 10, 0.75));
    let (samples, events, _) = play(&mut p, 4);
    assert_eq!(samples.iter().filter(|s| **s == 0.5).count(), 10);
    assert_eq!(samples.iter().filter(|s| **s == 0.25).count(), 10);
    assert_eq!(samples.iter().filter(|s| **s == 0.75).count(), 10);
    let records = done(&events);
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(records[0].text_played, "The rest of it. The end.");
}

#[test]
fn a_player_that_did_not_restart_waits_for_a_missing_first_sentence() {
    let mut p = player();
    p.handle(segment(7, 1, true, "Second."));
    p.handle(audio(7, 1, 10, 0.5));
    let (samples, events, _) = play(&mut p, 2);
    assert!(samples.iter().all(|s| *s == 0.0));
    assert!(done(&events).is_empty());
    // Once the stream is whole again, a restarted player waits too.
    let mut p = player();
    p.resume_at(0);
    p.handle(segment(3, 0, true, "Whole."));
    p.handle(segment(4, 1, true, "Second."));
    p.handle(audio(4, 1, 10, 0.5));
    p.handle(audio(3, 0, 10, 0.25));
    let (samples, _, _) = play(&mut p, 3);
    assert_eq!(samples.iter().filter(|s| **s == 0.5).count(), 0);
}

fn spoken(q: u64, len: usize, level: f32) -> PlayerInput {
    PlayerInput::Spoken {
        speaker: "hub".into(),
        question_id: q,
        index: 0,
        last: true,
        text: String::new(),
        samples: vec![level; len],
    }
}

#[test]
fn speech_that_arrives_spoken_plays_without_synthesis_and_keeps_the_order() {
    let mut p = player();
    // A node-hub TTS node's audio: nothing to synthesize, heard as it came.
    assert!(p.handle(spoken(1, 30, 0.5)).is_empty());
    p.handle(segment(2, 0, true, "After it."));
    p.handle(audio(2, 0, 10, 0.25));
    let (samples, events, who) = play(&mut p, 4);
    assert_eq!(samples.iter().filter(|s| **s == 0.5).count(), 30);
    assert_eq!(samples.iter().filter(|s| **s == 0.25).count(), 10);
    let records = done(&events);
    assert_eq!(records.len(), 2, "{events:?}");
    assert_eq!(records[0].speaker, "hub");
    assert_eq!((records[0].question_id, records[1].question_id), (1, 2));
    assert_eq!(who[0], Some(1));
    // Stale spoken audio (an older question id after an interrupt) is never heard.
    p.handle(PlayerInput::Interrupt { question_id: 5 });
    assert!(p.handle(spoken(4, 30, 0.9)).is_empty());
    let (samples, _, _) = play(&mut p, 3);
    assert!(samples.iter().all(|s| *s != 0.9));
}
