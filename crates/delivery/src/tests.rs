use proptest::prelude::*;

use super::*;

fn presenting(slide: usize) -> Part {
    Part::Presenting { slide }
}

/// `n` words that are neither fillers nor hedges.
fn plain_words(n: usize) -> String {
    (0..n)
        .map(|i| ["margin", "robots", "warehouse", "picking"][i % 4])
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn pace_per_slide_and_overall_come_from_onsets_and_transcripts() {
    let mut d = Delivery::new();
    d.slide_shown(0, 0);
    d.speech_started(1_000);
    d.heard(1, &plain_words(30), presenting(0), 13_000); // 30 words in 12 s: 150 a minute
    d.slide_shown(1, 20_000);
    d.speech_started(20_500);
    d.heard(2, &plain_words(20), presenting(1), 26_500); // 20 words in 6 s: 200 a minute
    let r = d.report(30_000, |s| (s == 1).then_some(60_000));
    assert_eq!(r.words, 50);
    assert_eq!(r.speaking_ms, 18_000);
    assert_eq!(r.words_per_minute, Some(166.7));
    assert_eq!(r.slides.len(), 2);
    assert_eq!(
        (r.slides[0].shown_ms, r.slides[0].words_per_minute),
        (20_000, Some(150.0))
    );
    assert_eq!(
        (r.slides[1].shown_ms, r.slides[1].planned_ms),
        (10_000, Some(60_000))
    );
    assert_eq!(r.slides[1].words_per_minute, Some(200.0));
    // Seven and a half seconds between the lines, across the slide change.
    assert_eq!(
        r.long_pauses,
        [Pause {
            at_ms: 13_000,
            ms: 7_500,
            slide: 1
        }]
    );
    assert_eq!(r.estimated_lines, 0);
}

#[test]
fn a_line_without_an_onset_is_timed_at_the_assumed_pace() {
    let mut d = Delivery::new();
    d.heard(3, &plain_words(15), presenting(0), 60_000);
    let r = d.report(60_000, |_| None);
    assert_eq!(r.speaking_ms, 6_000);
    assert_eq!(r.words_per_minute, Some(150.0));
    assert_eq!(r.estimated_lines, 1);
}

#[test]
fn a_line_the_player_voices_is_timed_by_its_sound() {
    let mut d = Delivery::new();
    // A scripted presenter: the onset and the words arrive together, the voice later.
    d.speech_started(1_000);
    d.heard(1, &plain_words(10), presenting(0), 1_000);
    assert_eq!(d.report(1_000, |_| None).estimated_lines, 1);
    d.voice_started(1, 1_500);
    d.voice_ended(1, 5_500);
    d.speech_started(6_000);
    d.heard(2, &plain_words(10), presenting(0), 6_000);
    d.voice_started(2, 9_000);
    d.voice_ended(2, 13_000);
    let r = d.report(13_000, |_| None);
    assert_eq!((r.speaking_ms, r.estimated_lines), (8_000, 0));
    assert_eq!(r.words_per_minute, Some(150.0));
    assert_eq!(
        r.long_pauses,
        [Pause {
            at_ms: 5_500,
            ms: 3_500,
            slide: 0
        }]
    );
    // A report for a line never heard changes nothing.
    d.voice_started(99, 20_000);
    assert_eq!(d.report(13_000, |_| None), r);
}

#[test]
fn answers_join_their_lines_and_say_whether_they_took_up_the_question() {
    let mut d = Delivery::new();
    let asked = |exchange| Part::Answering {
        exchange,
        asker: "Marcus Webb".into(),
        question: "What does picking cost per site?".into(),
    };
    d.speech_started(0);
    d.heard(4, "Um, picking costs us", asked(1), 2_000);
    d.speech_started(2_500);
    d.heard(5, "about forty thousand a year.", asked(1), 4_500);
    d.speech_started(10_000);
    d.heard(6, "Our team is great.", asked(2), 11_000);
    let r = d.report(12_000, |_| None);
    assert_eq!(r.answers.len(), 2);
    assert_eq!(r.answers[0].words, 9);
    assert_eq!(r.answers[0].speaking_ms, 4_000);
    assert!(r.answers[0].takes_up_question);
    assert!(!r.answers[1].takes_up_question);
    assert_eq!(r.fillers.get("um"), Some(&1));
    // Answers are not presenting: no pause is counted between them.
    assert!(r.long_pauses.is_empty());
    // Nor a silence while someone else held the floor.
    d.speech_started(20_000);
    d.heard(7, "Back to the deck.", presenting(1), 21_000);
    d.floor_taken();
    d.speech_started(40_000);
    d.heard(8, "Where were we.", presenting(1), 41_000);
    assert!(d.report(41_000, |_| None).long_pauses.is_empty());
    let page = r.to_markdown(|s| format!("slide {s}"));
    assert!(page.contains("| Marcus Webb | 9 |"), "{page}");
    assert!(page.contains("“um” 1"), "{page}");
}

#[test]
fn nothing_heard_is_said_plainly_and_travels_as_json() {
    let r = Delivery::new().report(5_000, |_| None);
    assert_eq!(r.words_per_minute, None);
    assert!(
        r.to_markdown(|s| s.to_string())
            .contains("Nothing the presenter said")
    );
    let json = serde_json::to_string(&r).unwrap();
    assert_eq!(serde_json::from_str::<DeliveryReport>(&json).unwrap(), r);
}

proptest! {
    /// Known words and durations give the pace they make, per slide and overall, and
    /// every word is counted once.
    #[test]
    fn pace_is_words_over_speaking_time(
        lines in prop::collection::vec((1usize..40, 1u64..20_000, 0u64..6_000, 0usize..3), 1..12)
    ) {
        let mut d = Delivery::new();
        let mut now = 0;
        let (mut words, mut ms) = (0, 0);
        for (n, speak, gap, slide) in &lines {
            now += gap;
            d.slide_shown(*slide, now);
            d.speech_started(now);
            now += speak;
            d.heard(7, &plain_words(*n), presenting(*slide), now);
            words += n;
            ms += speak;
        }
        let r = d.report(now, |_| None);
        prop_assert_eq!(r.words, words);
        prop_assert_eq!(r.speaking_ms, ms);
        prop_assert_eq!(r.slides.iter().map(|s| s.words).sum::<usize>(), words);
        prop_assert_eq!(r.slides.iter().map(|s| s.shown_ms).sum::<u64>(), now - lines[0].2);
        let expected = (words as f64 * 600_000.0 / ms as f64).round() / 10.0;
        prop_assert_eq!(r.words_per_minute, Some(expected));
        prop_assert!(r.fillers.is_empty() && r.hedges.is_empty());
        // The pauses are exactly the gaps of two seconds or more after the first line.
        let long: Vec<u64> = lines.iter().skip(1).map(|l| l.2).filter(|&g| g >= LONG_PAUSE_MS).collect();
        prop_assert_eq!(r.long_pauses.iter().map(|p| p.ms).collect::<Vec<_>>(), long);
    }

    /// Fillers put among plain words are each counted once, per minute of speech.
    #[test]
    fn fillers_are_counted_where_they_are_put(
        plain in 1usize..60,
        ums in 0usize..8,
        uhs in 0usize..8,
        seconds in 1u64..120,
    ) {
        let mut text: Vec<String> = plain_words(plain).split(' ').map(str::to_owned).collect();
        for i in 0..ums {
            text.insert((i * 7) % (text.len() + 1), "um,".into());
        }
        for i in 0..uhs {
            text.insert((i * 5) % (text.len() + 1), "uh".into());
        }
        let mut d = Delivery::new();
        d.speech_started(0);
        d.heard(8, &text.join(" "), presenting(0), seconds * 1000);
        let r = d.report(seconds * 1000, |_| None);
        prop_assert_eq!(r.fillers.get("um").copied().unwrap_or(0), ums);
        prop_assert_eq!(r.fillers.get("uh").copied().unwrap_or(0), uhs);
        let expected = ((ums + uhs) as f64 * 600.0 / seconds as f64).round() / 10.0;
        prop_assert_eq!(r.fillers_per_minute, Some(expected));
    }

    /// Any text, any order of events: no panic, and the figures stay consistent.
    #[test]
    fn any_input_gives_a_consistent_report(
        events in prop::collection::vec((0u8..5, ".{0,40}", 0u64..10_000, 0usize..4), 0..30)
    ) {
        let mut d = Delivery::new();
        let mut now = 0;
        for (kind, text, step, slide) in events {
            now += step;
            match kind {
                0 => d.speech_started(now),
                1 => d.slide_shown(slide, now),
                2 => d.voice_started(slide as u64, now),
                3 => d.voice_ended(slide as u64, now),
                _ => d.heard(slide as u64, &text, presenting(slide), now),
            }
        }
        let r = d.report(now, |_| None);
        // Lines may overlap when the voice's reports are out of order; none outlasts
        // the session.
        prop_assert!(r.slides.iter().all(|s| s.speaking_ms <= r.speaking_ms));
        prop_assert!(r.long_pauses.iter().all(|p| p.at_ms + p.ms <= now));
        prop_assert_eq!(r.slides.iter().map(|s| s.words).sum::<usize>(), r.words);
        let _ = r.to_markdown(|s| s.to_string());
    }
}
