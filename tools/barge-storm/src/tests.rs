//! Synthetic sessions: a recording at 1,000 samples a second (one sample per
//! millisecond), utterances, interrupts and recorder events written by hand.

use std::collections::BTreeSet;

use super::*;

const LOUD: i16 = 9_000;
/// The residue espeak-ng leaves in its pauses.
const RESIDUE: i16 = 120;

fn p(question_id: u64, start_ms: u64, end_ms: u64) -> Played {
    Played {
        question_id,
        start_ms,
        end_ms,
        interrupted: false,
        heard: true,
    }
}

fn cut_p(question_id: u64, start_ms: u64, end_ms: u64) -> Played {
    Played {
        interrupted: true,
        ..p(question_id, start_ms, end_ms)
    }
}

fn cut(question_id: u64, at_ms: u64) -> Cut {
    Cut {
        question_id,
        at_ms,
        busy: Some(false),
    }
}

fn r(t_ms: u64, event: &str, question_id: u64) -> Recorded {
    Recorded {
        t_ms,
        event: event.into(),
        question_id: Some(question_id),
        detail: None,
    }
}

fn played_event(t_ms: u64, question_id: u64, interrupted: bool) -> Recorded {
    Recorded {
        detail: Some(
            if interrupted {
                "interrupted"
            } else {
                "complete"
            }
            .into(),
        ),
        ..r(t_ms, "played", question_id)
    }
}

/// A recording of `ms` milliseconds of digital silence.
struct Wav(Vec<i16>);

impl Wav {
    fn new(ms: usize) -> Self {
        Self(vec![0; ms])
    }

    /// A voice (alternating around zero) in `[from, to)`.
    fn voice(mut self, from: usize, to: usize) -> Self {
        for (i, s) in self.0[from..to].iter_mut().enumerate() {
            *s = if i % 2 == 0 { LOUD } else { -LOUD };
        }
        self
    }

    fn level(mut self, from: usize, to: usize, level: i16) -> Self {
        self.0[from..to].fill(level);
        self
    }

    /// A 3 ms fade from `at`.
    fn fade(self, at: usize) -> Self {
        self.level(at, at + 1, LOUD / 2)
            .level(at + 1, at + 2, LOUD / 4)
            .level(at + 2, at + 3, LOUD / 8)
    }

    fn audio(self) -> Option<Audio> {
        Some(Audio::new(1000, self.0))
    }
}

/// Two utterances, the second cut mid-word at 900 ms by interrupt 3 (typed words), then
/// the next turn (4) heard from 1,500 ms; with a pause inside the first one.
fn clean() -> Session {
    Session {
        played: vec![p(1, 100, 600), cut_p(2, 600, 900), p(4, 1500, 2000)],
        cuts: vec![Cut {
            busy: Some(true),
            ..cut(3, 900)
        }],
        recorded: vec![
            r(0, "turn", 1),
            r(50, "turn", 2),
            played_event(600, 1, false),
            r(905, "interrupt", 3),
            r(906, "turn", 4),
            played_event(907, 2, true),
            played_event(2000, 4, false),
        ],
        audio: Wav::new(3000)
            .voice(100, 300)
            .level(300, 350, RESIDUE)
            .voice(350, 590)
            .voice(600, 900)
            .fade(900)
            .voice(1500, 1980)
            .audio(),
        ..Session::default()
    }
}

#[test]
fn a_clean_storm_passes() {
    let report = check(&clean());
    assert!(report.is_clean(), "{report:?}");
    assert!(report.went_on());
    assert_eq!(report.audio.cuts_checked, 1);
    // The fade is before the checked stretch, which is digital silence.
    assert_eq!(report.audio.loudest_after_cut, 0);
    assert_eq!(report.moments, BTreeMap::from([(Moment::MidWord, 1)]));
    assert_eq!(report.after.answered, 1);
    assert_eq!(report.after.longest_wait_ms, 600);
}

#[test]
fn a_voice_in_the_recording_after_its_interrupt_is_caught() {
    // The timeline says the utterance stopped at the interrupt; the recording disagrees.
    let mut session = clean();
    session.audio = Wav(session.audio.unwrap().samples_for_tests())
        .voice(950, 1000)
        .audio();
    let report = check(&session);
    assert!(!report.is_clean());
    assert!(
        report.late_voices.is_empty(),
        "the timeline alone misses it"
    );
    assert_eq!(report.audio.sound_after_cut.len(), 1);
    let (by, at, peak) = report.audio.sound_after_cut[0];
    assert_eq!((by.question_id, at, peak), (3, 950, LOUD as u16));
    assert_eq!(report.audio.sound_outside_spans, [(950, LOUD as u16)]);
}

#[test]
fn a_quiet_residue_after_the_fade_passes_a_voice_just_past_it_does_not() {
    let mut session = clean();
    session.audio = Wav(session.audio.clone().unwrap().samples_for_tests())
        .level(904, 1400, RESIDUE)
        .audio();
    let report = check(&session);
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(report.audio.loudest_after_cut, RESIDUE as u16);
    session.audio = Wav(session.audio.unwrap().samples_for_tests())
        .voice(904, 906)
        .audio();
    assert_eq!(check(&session).audio.sound_after_cut.len(), 1);
}

#[test]
fn a_stale_utterance_starting_after_its_interrupt_is_caught_in_the_audio() {
    // Utterance 2 was queued, the interrupt (3) came while it waited for its voice, and
    // it sounded anyway: both the timeline and the recording show it.
    let session = Session {
        played: vec![p(1, 100, 600), p(2, 1000, 1300), p(4, 1500, 2000)],
        cuts: vec![Cut {
            busy: Some(true),
            ..cut(3, 800)
        }],
        audio: Wav::new(3000)
            .voice(100, 600)
            .voice(1000, 1300)
            .voice(1500, 2000)
            .audio(),
        ..Session::default()
    };
    let report = check(&session);
    assert_eq!(report.late_voices.len(), 1);
    assert_eq!(report.audio.sound_after_cut.len(), 1);
    assert_eq!(report.audio.sound_after_cut[0].1, 1000);
    assert_eq!(report.moments, BTreeMap::from([(Moment::Synthesis, 1)]));
}

#[test]
fn the_timeline_and_the_recording_must_agree() {
    // A sound nobody is said to have made, and an utterance said to be heard in silence.
    let mut session = clean();
    session.audio = Wav(session.audio.unwrap().samples_for_tests())
        .voice(1200, 1210)
        .level(1500, 1980, 0)
        .audio();
    let report = check(&session);
    assert_eq!(report.audio.sound_outside_spans, [(1200, LOUD as u16)]);
    assert_eq!(report.audio.silent_heard_spans, [p(4, 1500, 2000)]);
    // An utterance cut before a word was heard may be silent.
    let mut unheard = clean();
    unheard.played[2].heard = false;
    unheard.audio = Wav(unheard.audio.unwrap().samples_for_tests())
        .level(1500, 1980, 0)
        .audio();
    assert!(check(&unheard).audio.silent_heard_spans.is_empty());
}

#[test]
fn the_voice_the_stop_cut_needs_an_open_turn_and_must_follow_the_last_interrupt() {
    // Turn 5, handed out after the last interrupt, sounds from 2,500 ms when the
    // recording stops: no timeline line, and none is needed.
    let mut session = clean();
    session.recorded.push(r(2100, "turn", 5));
    session.audio = Wav(session.audio.unwrap().samples_for_tests())
        .voice(2500, 3000)
        .audio();
    let report = check(&session);
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(report.audio.sounding_at_end, Some(2500));
    // With every turn played, that sound is nobody's.
    let mut nobodys = session.clone();
    nobodys.recorded.push(played_event(2200, 5, false));
    let report = check(&nobodys);
    assert_eq!(report.audio.sounding_at_end, None);
    assert_eq!(report.audio.sound_outside_spans, [(2500, LOUD as u16)]);
    // A sound starting before the last interrupt is not excused either: it belongs to an
    // utterance the interrupt should have cut.
    let mut before_cut = session;
    before_cut.cuts.push(cut(7, 2600));
    before_cut.recorded.push(r(2600, "interrupt", 7));
    before_cut.recorded.push(r(2601, "turn", 8));
    let report = check(&before_cut);
    assert_eq!(report.audio.sounding_at_end, Some(2604));
    assert_eq!(report.audio.sound_outside_spans, [(2500, LOUD as u16)]);
    assert!(!report.is_clean());
}

#[test]
fn a_missing_recording_is_not_clean() {
    let mut session = clean();
    session.audio = None;
    let report = check(&session);
    assert!(!report.audio.present);
    assert!(!report.is_clean());
}

#[test]
fn the_timeline_and_the_recorder_must_tell_of_the_same_utterances_and_interrupts() {
    let mut session = clean();
    session.recorded[2] = played_event(600, 1, true);
    session.recorded.push(r(2100, "interrupt", 9));
    let report = check(&session);
    assert_eq!(
        report.unpaired_played,
        [(1, false, "timeline.jsonl"), (1, true, "events.jsonl")]
    );
    assert_eq!(report.unpaired_interrupts, [9]);
}

#[test]
fn moments_are_told_apart() {
    let played = [p(1, 100, 600), cut_p(2, 600, 900)];
    let audio = Wav::new(3000)
        .voice(100, 300)
        .level(300, 400, RESIDUE)
        .voice(400, 600)
        .voice(600, 900)
        .audio();
    let at = |at_ms, busy, outstanding| {
        moment_of(
            &Cut {
                question_id: 3,
                at_ms,
                busy,
            },
            &played,
            audio.as_ref(),
            outstanding,
        )
    };
    assert_eq!(at(250, Some(true), true), Moment::MidWord);
    assert_eq!(at(900, Some(true), true), Moment::MidWord, "the cut itself");
    assert_eq!(at(390, Some(true), true), Moment::BetweenWords);
    assert_eq!(at(1200, Some(true), true), Moment::Synthesis);
    assert_eq!(at(1200, Some(false), true), Moment::Generation);
    assert_eq!(at(1200, None, true), Moment::Generation);
    assert_eq!(at(1200, Some(false), false), Moment::Idle);
    // Utterance 1 ended at 600 without being cut: not sounding there.
    assert_eq!(at(600, Some(false), false), Moment::MidWord, "2 started");
    let only_first = [p(1, 100, 600)];
    let m = moment_of(&cut(3, 600), &only_first, audio.as_ref(), false);
    assert_eq!(m, Moment::Idle);
    // A newer utterance never makes the cut mid-word.
    let newer = [p(5, 100, 600)];
    let m = moment_of(&cut(3, 250), &newer, audio.as_ref(), true);
    assert_eq!(m, Moment::Generation);
}

#[test]
fn a_turn_is_outstanding_until_played_or_cut() {
    let events = [
        r(0, "turn", 1),
        r(10, "interrupt", 2), // 1 generating
        r(11, "turn", 3),
        played_event(20, 3, false),
        r(30, "interrupt", 4), // 3 was played
        r(31, "interrupt", 5), // nothing handed out since 4
        r(32, "turn", 6),
        r(33, "turn", 7),
        played_event(40, 6, false),
        r(50, "interrupt", 8), // 7 still open
    ];
    assert_eq!(outstanding_turns(&events), BTreeSet::from([2, 8]));
}

#[test]
fn two_interrupts_in_a_row_are_counted_with_their_moments() {
    let mut session = clean();
    session.cuts.push(cut(5, 930));
    session
        .recorded
        .splice(5..5, [r(935, "interrupt", 5), r(936, "turn", 6)]);
    session.played[2].question_id = 6;
    session.recorded.last_mut().unwrap().question_id = Some(6);
    let report = check(&session);
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(report.close, BTreeMap::from([(Moment::Generation, 1)]));
    assert_eq!(
        report.moments,
        BTreeMap::from([(Moment::Generation, 1), (Moment::MidWord, 1)])
    );
    assert_eq!((report.after.answered, report.after.pre_empted), (1, 1));
    assert_eq!(report.after.longest_pre_empted_ms, 30);
}

#[test]
fn what_follows_an_interrupt() {
    let played = [cut_p(2, 0, 1000), p(4, 1500, 2000), p(6, 40_000, 41_000)];
    let audio = Wav::new(60_000)
        .voice(0, 1000)
        .voice(1500, 2000)
        .voice(40_000, 41_000)
        .audio();
    let after = |q, at, next| aftermath(&cut(q, at), next, 60_000, &played, audio.as_ref());
    assert_eq!(
        after(3, 1000, Some(3000)),
        Aftermath::Answered { wait_ms: 500 }
    );
    assert_eq!(
        after(3, 1000, Some(1200)),
        Aftermath::PreEmpted { window_ms: 200 }
    );
    // From 2,000 ms nobody speaks for 38 s: stuck, whether the next interrupt comes
    // before the voice or not.
    assert_eq!(after(5, 2000, Some(39_000)), Aftermath::Stuck);
    assert_eq!(after(5, 2000, None), Aftermath::Stuck);
    // The last interrupt, a moment before the end.
    let ended = aftermath(&cut(7, 59_000), None, 60_000, &played, audio.as_ref());
    assert_eq!(ended, Aftermath::EndedFirst);
    // A voice the timeline lists but the recording does not hold is not an answer.
    let silent = Wav::new(60_000).voice(0, 1000).audio();
    let m = aftermath(&cut(3, 1000), Some(3000), 60_000, &played, silent.as_ref());
    assert_eq!(m, Aftermath::PreEmpted { window_ms: 2000 });
}

#[test]
fn an_interrupt_without_a_next_turn_and_a_lost_turn_are_caught() {
    let events = [
        r(0, "turn", 1),
        r(10, "interrupt", 2),
        r(20, "interrupt", 3),
        r(21, "turn", 4),
        r(30_000, "turn", 5),
    ];
    let session = Session {
        recorded: events.to_vec(),
        ..Session::default()
    };
    let report = check(&session);
    assert_eq!(report.no_turn_after, [2]);
    // 1 was cut by interrupt 2; 4 was never played nor cut; 5 is too close to the end.
    assert_eq!(report.lost_turns, [4]);
}

#[test]
fn the_controllers_account_decides_the_turns_and_the_recorders_gaps_are_counted() {
    // The recorder missed turn 4; the controller's decision log has it.
    let mut session = clean();
    session.recorded.remove(4);
    let steps = [
        r#"{"line":"step","at_ns":0,"input":"start","decisions":["Turn { speaker: \"student1\", question_id: 1 }","Status(PolicyStats { question_id: 1 })"]}"#,
        r#"{"line":"step","at_ns":50000000,"input":{"text":{"from":"student1","question_id":1}},"decisions":["Utterance(Utterance { speaker: \"student1\", question_id: 1 })","Turn { speaker: \"tutor\", question_id: 2 }"]}"#,
        r#"{"line":"step","at_ns":600000000,"input":{"playback_done":{"question_id":1}},"decisions":[]}"#,
        r#"{"line":"step","at_ns":905000000,"input":{"human":{"speaker":"human"}},"decisions":["Interrupt { kind: Reset, question_id: 3 }","Utterance(Utterance { speaker: \"human\", question_id: 3 })","Turn { speaker: \"tutor\", question_id: 4 }"]}"#,
        r#"{"line":"step","at_ns":907000000,"input":{"playback_done":{"question_id":2}},"decisions":[]}"#,
        r#"{"line":"step","at_ns":2000000000,"input":{"playback_done":{"question_id":4}},"decisions":[]}"#,
    ];
    for step in steps {
        controller_steps(&serde_json::from_str(step).unwrap(), &mut session.decided);
    }
    assert_eq!(session.decided.len(), 7);
    assert_eq!(session.decided[0], r(0, "turn", 1));
    assert_eq!(session.decided[2], r(600, "played", 1));
    assert_eq!(session.decided[3], r(905, "interrupt", 3));
    assert_eq!(session.decided[4], r(905, "turn", 4));
    let report = check(&session);
    assert!(report.no_turn_after.is_empty());
    assert_eq!(report.turns_missing_from_events, [4]);
    assert!(report.is_clean(), "{report:?}");
    // Without the controller's account, the recorder's gap looks like a missing turn.
    session.decided.clear();
    assert_eq!(check(&session).no_turn_after, [3]);
}

#[test]
fn overlaps_and_repeated_turns_are_caught() {
    let session = Session {
        played: vec![p(1, 0, 600), p(2, 500, 900)],
        recorded: vec![r(0, "turn", 1), r(5, "turn", 1)],
        ..Session::default()
    };
    let report = check(&session);
    assert_eq!(report.overlaps.len(), 1);
    assert_eq!(report.repeated_turns, [1]);
    assert!(!report.is_clean());
}

#[test]
fn a_voice_in_the_timeline_past_its_interrupt_is_caught_within_the_fade_it_is_not() {
    let cuts = [cut(4, 1000)];
    let with = |played: Played| {
        check(&Session {
            played: vec![played],
            cuts: cuts.to_vec(),
            ..Session::default()
        })
        .late_voices
        .len()
    };
    assert_eq!(with(p(2, 0, 1000 + CUT_TOLERANCE_MS)), 0);
    assert_eq!(with(p(2, 0, 1100)), 1);
    assert_eq!(with(p(3, 1200, 1300)), 1, "a stale one starting after it");
    assert_eq!(with(p(4, 1200, 1300)), 0, "newer ones may sound");
}

#[test]
fn a_session_folder_is_read() {
    let dir = std::env::temp_dir().join(format!("barge-storm-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("timeline.jsonl"),
        concat!(
            r#"{"speaker":"tutor","question_id":1,"start_ms":0,"end_ms":20,"interrupted":true,"chars_played":0,"text_played":""}"#,
            "\n",
            r#"{"speaker":"tutor","question_id":4,"start_ms":20,"end_ms":30,"interrupted":false,"chars_played":1,"text_played":"—"}"#,
            "\n",
            r#"{"speaker":"tutor","question_id":5,"start_ms":30,"end_ms":40,"interrupted":false,"chars_played":2,"text_played":"So"}"#,
            "\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("interrupts.jsonl"),
        "{\"question_id\":2,\"at_ms\":20,\"busy\":true}\n{\"question_id\":3,\"at_ms\":40}\nnot json\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("events.jsonl"),
        "{\"t_ms\":5,\"event\":\"played\",\"question_id\":1,\"detail\":\"interrupted\"}\n",
    )
    .unwrap();
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 1000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut wav = hound::WavWriter::create(dir.join("conversation.wav"), spec).unwrap();
    for i in 0..100 {
        wav.write_sample(if i < 20 { LOUD } else { 0 }).unwrap();
    }
    wav.finalize().unwrap();
    let session = read_session(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        session.played,
        [
            Played {
                heard: false,
                ..cut_p(1, 0, 20)
            },
            Played {
                heard: false,
                ..p(4, 20, 30)
            },
            p(5, 30, 40)
        ]
    );
    assert_eq!(
        session.cuts,
        [
            Cut {
                question_id: 2,
                at_ms: 20,
                busy: Some(true)
            },
            Cut {
                question_id: 3,
                at_ms: 40,
                busy: None
            }
        ]
    );
    assert_eq!(session.recorded[0].detail.as_deref(), Some("interrupted"));
    assert_eq!(session.unreadable, 1);
    let audio = session.audio.unwrap();
    assert_eq!((audio.rate(), audio.duration_ms()), (1000, 100));
    assert_eq!(audio.peak(0, 20), LOUD as u16);
    assert_eq!(audio.peak(20, 100), 0);
}

proptest::proptest! {
    #[test]
    fn back_to_back_utterances_never_overlap(lengths in proptest::collection::vec(1u64..5000, 1..50)) {
        let mut at = 0;
        let played: Vec<Played> = lengths.iter().enumerate().map(|(i, len)| {
            let one = p(i as u64 + 1, at, at + len);
            at += len;
            one
        }).collect();
        let report = check(&Session { played, ..Session::default() });
        proptest::prop_assert!(report.overlaps.is_empty());
    }

    /// Utterances cut at random points, with a recording that stops at each cut: clean.
    /// The same with the cut voice going on a moment longer: caught, once per cut.
    #[test]
    fn every_voice_past_its_cut_is_heard(
        utterances in proptest::collection::vec((20usize..400, 0usize..100, proptest::bool::ANY), 1..20),
        leak in 5usize..50,
    ) {
        let mut played = Vec::new();
        let mut cuts = Vec::new();
        let mut wav = Wav::new(utterances.len() * 700 + 100);
        let mut leaky = Wav::new(utterances.len() * 700 + 100);
        let mut at = 50;
        let mut q = 1;
        for &(len, gap, cut_off) in &utterances {
            wav = wav.voice(at, at + len);
            leaky = leaky.voice(at, at + len);
            if cut_off {
                played.push(cut_p(q, at as u64, (at + len) as u64));
                cuts.push(cut(q + 1, (at + len) as u64));
                leaky = leaky.voice(at + len + CUT_TOLERANCE_MS as usize, at + len + CUT_TOLERANCE_MS as usize + leak);
                q += 2;
            } else {
                played.push(p(q, at as u64, (at + len) as u64));
                q += 1;
            }
            at += len + CUT_TOLERANCE_MS as usize + 50 + gap;
        }
        let clean = Session { played: played.clone(), cuts: cuts.clone(), audio: wav.audio(), ..Session::default() };
        let report = check(&clean);
        proptest::prop_assert!(report.audio.sound_after_cut.is_empty());
        proptest::prop_assert!(report.audio.sound_outside_spans.is_empty());
        let leaked = Session { played, cuts: cuts.clone(), audio: leaky.audio(), ..Session::default() };
        let report = check(&leaked);
        proptest::prop_assert_eq!(report.audio.sound_after_cut.len(), cuts.len());
        proptest::prop_assert_eq!(report.audio.sound_outside_spans.len(), cuts.len());
    }
}
