//! The ASR bridge's decisions, without devices, clocks or recognizers.
//!
//! - [`Vad`]: energy-based voice activity detection with hysteresis. Speech starts after
//!   `start_ms` of frames above the threshold (the onset is reported at once, before any
//!   transcript, so playback can be muted); it ends after `end_ms` below it. The finished
//!   utterance (with `preroll_ms` of audio before the onset) goes to a recognizer.
//! - [`classify`]: a recognized utterance is a real turn, or a backchannel ("mm-hmm", a
//!   cough, a short "yeah") that must not reset the conversation: known feedback phrases,
//!   sounds only ("um, uh", however long), and anything of at most `max_words` words and
//!   `max_ms` long unless it contains a word that asks for the floor ("stop", "wait").
//! - [`whisper`]: Whisper's input features, prompt and token decoding (the network runs
//!   in the node); [`clean_transcript`] drops the annotations of sounds from its text.
//! - [`word_errors`]: word error rate, for benchmarks.
//! - [`echo`]: the agents' own voices taken out of a microphone that hears the loudspeaker.
//!
//! Time is the number of samples pushed; audio arrives as mono `f32` at one sample rate.

pub mod echo;
pub mod end_of_turn;
pub mod endpoint;
pub mod microphones;
pub mod whisper;

use std::collections::VecDeque;

use audio_utils::{Pcm, rms};
use voice_protocol::sounds;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VadConfig {
    pub sample_rate: u32,
    /// RMS level above which a frame counts as voiced.
    pub threshold: f32,
    pub frame_ms: u32,
    /// Voiced time before speech is declared.
    pub start_ms: u32,
    /// Silence that ends an utterance.
    pub end_ms: u32,
    /// Audio kept from before the onset.
    pub preroll_ms: u32,
    /// Utterances are cut at this length.
    pub max_ms: u32,
    /// Silence after which the utterance so far is offered for early recognition
    /// ([`VadEvent::Paused`]); 0: never (only `end_ms` ends a turn).
    pub pause_ms: u32,
    /// The closing silence of an utterance held at a pause ([`Vad::hold`]): its words are
    /// being judged, or went on ("… the derivative of"), so a longer pause is a hesitation.
    pub hold_ms: u32,
    /// The least silence before words that make a finished turn at a pause are taken:
    /// a recognizer hearing a clause cut short often writes a finished sentence of it.
    pub commit_ms: u32,
}

impl VadConfig {
    pub fn new(sample_rate: u32) -> Self {
        Self {
            sample_rate,
            threshold: 0.02,
            frame_ms: 20,
            start_ms: 100,
            end_ms: 700,
            preroll_ms: 200,
            max_ms: 30_000,
            pause_ms: 0,
            hold_ms: 1200,
            commit_ms: 500,
        }
    }

    /// Early end of turn turned off when its settings cannot work together (a pause no
    /// shorter than the closing silence, or finished words taken no sooner than a held
    /// pause closes); the reason, to be logged.
    pub fn without_impossible_pauses(mut self) -> (Self, Option<&'static str>) {
        let problem = if self.pause_ms == 0 {
            None
        } else if self.pause_ms >= self.end_ms {
            Some("the pause is not shorter than the closing silence (VAD_END_MS)")
        } else if self.commit_ms >= self.hold_ms.max(self.end_ms) {
            Some("finished words would be taken no sooner than a held pause closes (VAD_HOLD_MS)")
        } else {
            None
        };
        if problem.is_some() {
            self.pause_ms = 0;
        }
        (self, problem)
    }

    fn samples(&self, ms: u32) -> usize {
        (u64::from(self.sample_rate) * u64::from(ms) / 1000) as usize
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum VadEvent {
    /// Speech began at `at_ms` (stream time).
    SpeechStarted { at_ms: u64 },
    /// Speech ended: the utterance's audio, for recognition.
    Utterance {
        audio: Pcm,
        start_ms: u64,
        end_ms: u64,
    },
    /// The speaker has been silent `pause_ms`: the utterance so far (without the
    /// silence), which is the whole utterance unless [`VadEvent::Resumed`] follows.
    Paused {
        audio: Pcm,
        start_ms: u64,
        end_ms: u64,
    },
    /// Voice came back after [`VadEvent::Paused`]: the utterance goes on.
    Resumed,
}

#[derive(Debug, Clone)]
pub struct Vad {
    config: VadConfig,
    frame: Vec<f32>,
    preroll: VecDeque<f32>,
    voiced_run: usize,
    silent_run: usize,
    speaking: Option<Vec<f32>>,
    /// A [`VadEvent::Paused`] was sent for the current silence.
    paused: bool,
    /// The current silence closes the utterance at `hold_ms`, not `end_ms`.
    held: bool,
    onset: u64,
    clock: u64,
}

impl Vad {
    pub fn new(config: VadConfig) -> Self {
        Self {
            config,
            frame: Vec::new(),
            preroll: VecDeque::new(),
            voiced_run: 0,
            silent_run: 0,
            speaking: None,
            paused: false,
            held: false,
            onset: 0,
            clock: 0,
        }
    }

    /// Ends the utterance in progress without an [`VadEvent::Utterance`]: its words were
    /// already taken at a pause. Voice after this starts a new utterance.
    pub fn cut(&mut self) {
        if self.speaking.take().is_some() {
            self.voiced_run = 0;
            self.silent_run = 0;
            self.paused = false;
            self.held = false;
            self.preroll.clear();
        }
    }

    /// The current silence of the utterance closes it at `hold_ms` instead of `end_ms`
    /// (until voice comes back): a pause whose words are being judged or went on.
    pub fn hold(&mut self) {
        if self.speaking.is_some() {
            self.held = true;
        }
    }

    pub fn is_speaking(&self) -> bool {
        self.speaking.is_some()
    }

    /// How long the speaker has been silent in the utterance in progress (0 outside one).
    pub fn silence_ms(&self) -> u64 {
        match self.speaking {
            Some(_) => self.ms(self.silent_run as u64),
            None => 0,
        }
    }

    fn ms(&self, samples: u64) -> u64 {
        samples * 1000 / u64::from(self.config.sample_rate)
    }

    /// Feeds samples; returns what happened.
    pub fn push(&mut self, samples: &[f32]) -> Vec<VadEvent> {
        let mut events = Vec::new();
        let frame_len = self.config.samples(self.config.frame_ms).max(1);
        for &s in samples {
            self.frame.push(s);
            if self.frame.len() == frame_len {
                let frame = std::mem::take(&mut self.frame);
                self.on_frame(&frame, &mut events);
            }
        }
        events
    }

    /// The stream ended: an utterance in progress is finished.
    pub fn finish(&mut self) -> Vec<VadEvent> {
        let mut events = Vec::new();
        if let Some(audio) = self.speaking.take() {
            events.push(self.utterance(audio));
        }
        events
    }

    fn on_frame(&mut self, frame: &[f32], events: &mut Vec<VadEvent>) {
        let voiced = rms(frame) > self.config.threshold;
        self.clock += frame.len() as u64;
        match self.speaking.as_mut() {
            None => {
                self.preroll.extend(frame);
                let keep = self
                    .config
                    .samples(self.config.preroll_ms + self.config.start_ms);
                while self.preroll.len() > keep {
                    self.preroll.pop_front();
                }
                self.voiced_run = if voiced {
                    self.voiced_run + frame.len()
                } else {
                    0
                };
                if self.voiced_run >= self.config.samples(self.config.start_ms) {
                    self.onset = self.clock - self.voiced_run as u64;
                    self.speaking = Some(self.preroll.drain(..).collect());
                    self.silent_run = 0;
                    self.paused = false;
                    self.held = false;
                    events.push(VadEvent::SpeechStarted {
                        at_ms: self.ms(self.onset),
                    });
                }
            }
            Some(audio) => {
                audio.extend_from_slice(frame);
                self.silent_run = if voiced {
                    0
                } else {
                    self.silent_run + frame.len()
                };
                let too_long = audio.len() >= self.config.samples(self.config.max_ms);
                let closing_ms = if self.held {
                    self.config.hold_ms.max(self.config.end_ms)
                } else {
                    self.config.end_ms
                };
                if self.silent_run >= self.config.samples(closing_ms) || too_long {
                    let audio = self.speaking.take().expect("speaking");
                    self.voiced_run = 0;
                    self.paused = false;
                    self.held = false;
                    events.push(self.utterance(audio));
                } else if voiced && self.paused {
                    self.paused = false;
                    self.held = false;
                    events.push(VadEvent::Resumed);
                } else if !voiced
                    && !self.paused
                    && self.config.pause_ms > 0
                    && self.silent_run >= self.config.samples(self.config.pause_ms)
                {
                    self.paused = true;
                    let audio = audio.clone();
                    let (audio, start_ms, end_ms) = self.spoken(audio);
                    events.push(VadEvent::Paused {
                        audio,
                        start_ms,
                        end_ms,
                    });
                }
            }
        }
    }

    fn utterance(&self, audio: Vec<f32>) -> VadEvent {
        let (audio, start_ms, end_ms) = self.spoken(audio);
        VadEvent::Utterance {
            audio,
            start_ms,
            end_ms,
        }
    }

    /// The audio of what was said, with its start and end (stream time).
    fn spoken(&self, mut audio: Vec<f32>) -> (Pcm, u64, u64) {
        // Trailing silence is not part of what was said.
        let trailing = self.silent_run.min(audio.len());
        audio.truncate(audio.len() - trailing);
        let end_ms = self.ms(self.clock - trailing as u64);
        let pcm = Pcm {
            sample_rate: self.config.sample_rate,
            samples: audio,
        };
        (pcm, self.ms(self.onset), end_ms)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct BackchannelConfig {
    /// Utterances with at most this many words may be backchannels...
    pub max_words: usize,
    /// ...if they are also at most this long.
    pub max_ms: u64,
    /// Phrases that are always backchannels.
    pub phrases: Vec<String>,
    /// Words that always take the floor, however short ("stop", "wait").
    pub floor_words: Vec<String>,
}

impl Default for BackchannelConfig {
    fn default() -> Self {
        Self {
            max_words: 2,
            max_ms: 1200,
            // Every sound is feedback; of words, these.
            phrases: sounds::HESITATIONS
                .iter()
                .chain(sounds::FEEDBACK)
                .chain(&["yeah", "yes", "ok", "okay", "right", "oh", "i see"])
                .map(|p| p.to_string())
                .collect(),
            floor_words: [
                "stop", "wait", "no", "sorry", "excuse", "hold", "hey", "question", "but",
            ]
            .iter()
            .map(|p| p.to_string())
            .collect(),
        }
    }
}

/// What a recognized utterance means for the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// A real turn: the conversation is interrupted and reset.
    Turn(String),
    /// Feedback, noise or nothing: playback resumes, nothing is reset.
    Backchannel,
}

/// Decides between a turn and a backchannel.
pub fn classify(text: &str, duration_ms: u64, config: &BackchannelConfig) -> Heard {
    let normalized: String = text
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '\'' {
                c
            } else {
                ' '
            }
        })
        .collect();
    let words: Vec<&str> = normalized.split_whitespace().collect();
    if words.is_empty() {
        return Heard::Backchannel; // a cough, a door, breathing
    }
    let phrase = words.join(" ");
    if config.phrases.contains(&phrase) {
        return Heard::Backchannel;
    }
    // Sounds only, however many: a nod or a hesitation, not a question. (A recognizer
    // told to keep fillers may write a nod's "mm-hmm" as "Um, uh, um.".)
    // Sounds that carry no word: feedback or a hesitation, whatever its length.
    if words.iter().all(|w| sounds::is_wordless(w)) {
        return Heard::Backchannel;
    }
    // Short and brief: feedback, unless it is a word that asks for the floor.
    let asks_for_floor = words
        .iter()
        .any(|w| config.floor_words.iter().any(|f| f == w));
    if words.len() <= config.max_words && duration_ms <= config.max_ms && !asks_for_floor {
        return Heard::Backchannel;
    }
    Heard::Turn(text.trim().to_owned())
}

/// A recognizer's text as spoken words: without the non-speech annotations Whisper-class
/// models write for sounds (`[BLANK_AUDIO]`, `(coughs)`, `*laughs*`, `♪`), with white
/// space collapsed, and without a sentence repeated right after itself (a Whisper-class
/// decoder's loop: "Why is that? Why is that?"). What is left may be empty (a sound, not
/// words).
pub fn clean_transcript(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut closing: Option<char> = None;
    for c in text.chars() {
        match (closing, c) {
            (Some(end), c) if c == end => closing = None,
            (Some(_), _) => {}
            (None, '[') => closing = Some(']'),
            (None, '(') => closing = Some(')'),
            (None, '*') => closing = Some('*'),
            (None, '♪' | '♫') => {}
            (None, c) if c.is_control() => out.push(' '),
            (None, c) => out.push(c),
        }
    }
    let text = out.split_whitespace().collect::<Vec<_>>().join(" ");
    without_repeats(&text)
}

/// `text` without a sentence that repeats the one before it (compared as lower-case
/// letters and digits). A sentence ends at `.`, `!` or `?` before a space or the end, so
/// "3.5" is no end.
fn without_repeats(text: &str) -> String {
    let key = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let mut sentences = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let ends = matches!(c, '.' | '!' | '?')
            && chars.peek().is_none_or(|&(_, next)| next.is_whitespace());
        if ends {
            sentences.push(&text[start..i + c.len_utf8()]);
            start = i + c.len_utf8();
        }
    }
    sentences.push(&text[start..]);
    let mut out = String::with_capacity(text.len());
    let mut last_key = String::new();
    for sentence in sentences {
        let this = key(sentence);
        if !this.is_empty() && this == last_key {
            continue;
        }
        if !this.is_empty() {
            last_key = this;
        }
        out.push_str(sentence);
    }
    out.trim().to_owned()
}

/// Word error rate of `heard` against `reference`: (substitutions + deletions +
/// insertions) / reference words, on lower-case words without punctuation (so "Two." and
/// "two" agree). Returns the edit count and the reference length.
pub fn word_errors(reference: &str, heard: &str) -> (usize, usize) {
    let words = |text: &str| -> Vec<String> {
        text.to_lowercase()
            .split(|c: char| c.is_whitespace() || c == '-')
            .map(|w| {
                w.chars()
                    .filter(|c| c.is_alphanumeric() || *c == '\'')
                    .collect::<String>()
            })
            .filter(|w| !w.is_empty())
            .collect()
    };
    let (r, h) = (words(reference), words(heard));
    // Levenshtein over words, one row at a time.
    let mut row: Vec<usize> = (0..=h.len()).collect();
    for (i, rw) in r.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, hw) in h.iter().enumerate() {
            let substitution = diagonal + usize::from(rw != hw);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    (row[h.len()], r.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn word_errors_count_edits_of_words() {
        assert_eq!(word_errors("Can you show me?", "can you show me"), (0, 4));
        assert_eq!(
            word_errors("the slope is two", "the slope was two too"),
            (2, 4)
        );
        assert_eq!(word_errors("mm-hmm", ""), (2, 2));
        assert_eq!(word_errors("", "noise"), (1, 0));
    }

    #[test]
    fn annotations_of_sounds_are_not_words() {
        assert_eq!(
            clean_transcript(" Sorry to interrupt, (coughs) can you\n show me?"),
            "Sorry to interrupt, can you show me?"
        );
        assert_eq!(clean_transcript("[BLANK_AUDIO]"), "");
        assert_eq!(clean_transcript("♪ *music* ♪"), "");
        assert_eq!(clean_transcript("an open ( bracket"), "an open");
        // A decoder's loop is heard once; a sentence said again later stays.
        assert_eq!(
            clean_transcript("Why is the slope a limit? Why is the slope a limit?"),
            "Why is the slope a limit?"
        );
        assert_eq!(
            clean_transcript("Yes. No. Yes. Right, right."),
            "Yes. No. Yes. Right, right."
        );
        assert_eq!(
            clean_transcript("Go on. go on! And then"),
            "Go on. And then"
        );
        assert_eq!(clean_transcript("x is 3.5. x is 3.5."), "x is 3.5.");
    }

    const RATE: u32 = 16_000;

    fn tone(ms: u32, level: f32) -> Vec<f32> {
        (0..RATE * ms / 1000)
            .map(|i| (i as f32 * 0.3).sin() * level)
            .collect()
    }

    #[test]
    fn pauses_that_cannot_work_turn_early_end_of_turn_off() {
        let config = |pause_ms, commit_ms| VadConfig {
            pause_ms,
            commit_ms,
            ..VadConfig::new(RATE)
        };
        assert_eq!(config(250, 500).without_impossible_pauses().1, None);
        assert_eq!(config(0, 5000).without_impossible_pauses().1, None);
        let (off, why) = config(800, 500).without_impossible_pauses();
        assert!(why.is_some() && off.pause_ms == 0);
        let (off, why) = config(250, 1500).without_impossible_pauses();
        assert!(why.is_some() && off.pause_ms == 0);
    }

    #[test]
    fn speech_onset_and_end() {
        let mut vad = Vad::new(VadConfig::new(RATE));
        assert!(vad.push(&tone(500, 0.0)).is_empty());
        let events = vad.push(&tone(200, 0.5));
        assert_eq!(events, [VadEvent::SpeechStarted { at_ms: 500 }]);
        assert!(vad.push(&tone(600, 0.5)).is_empty());
        assert!(
            vad.push(&tone(300, 0.0)).is_empty(),
            "a short pause does not end it"
        );
        assert!(vad.push(&tone(300, 0.5)).is_empty());
        let events = vad.push(&tone(800, 0.0));
        let [
            VadEvent::Utterance {
                audio,
                start_ms,
                end_ms,
            },
        ] = &events[..]
        else {
            panic!("{events:?}")
        };
        assert_eq!(*start_ms, 500);
        assert_eq!(*end_ms, 1900);
        // Pre-roll before the onset is kept for the recognizer.
        assert!(audio.duration_ms() >= 1400 + 150, "{}", audio.duration_ms());
        assert!(!vad.is_speaking());
    }

    #[test]
    fn clicks_are_not_speech() {
        let mut vad = Vad::new(VadConfig::new(RATE));
        for _ in 0..10 {
            assert!(vad.push(&tone(40, 0.8)).is_empty());
            assert!(vad.push(&tone(100, 0.0)).is_empty());
        }
    }

    #[test]
    fn stream_end_finishes_an_utterance() {
        let mut vad = Vad::new(VadConfig::new(RATE));
        vad.push(&tone(400, 0.5));
        assert!(matches!(vad.finish()[..], [VadEvent::Utterance { .. }]));
    }

    #[test]
    fn backchannels_versus_turns() {
        let c = BackchannelConfig::default();
        assert_eq!(classify("Mm-hmm.", 400, &c), Heard::Backchannel);
        assert_eq!(classify("", 300, &c), Heard::Backchannel);
        assert_eq!(classify("yeah okay", 800, &c), Heard::Backchannel);
        assert_eq!(classify("I see", 2000, &c), Heard::Backchannel);
        assert_eq!(
            classify("yeah okay", 3000, &c),
            Heard::Turn("yeah okay".into())
        );
        assert_eq!(
            classify("Can you give an example?", 1500, &c),
            Heard::Turn("Can you give an example?".into())
        );
        assert_eq!(classify("stop", 300, &c), Heard::Turn("stop".into()));
        assert_eq!(
            classify("wait what", 900, &c),
            Heard::Turn("wait what".into())
        );
        // A short mumble the recognizer made words of is still feedback.
        assert_eq!(classify("you", 580, &c), Heard::Backchannel);
        // A nod written down as fillers, or a long hesitation: sounds only.
        assert_eq!(classify("Um, uh, um.", 240, &c), Heard::Backchannel);
        assert_eq!(
            classify("Hmm... uh... um, er.", 3000, &c),
            Heard::Backchannel
        );
        assert_eq!(
            classify("Um, uh, why?", 900, &c),
            Heard::Turn("Um, uh, why?".into())
        );
    }

    proptest! {
        #[test]
        fn vad_never_panics_and_orders_events(chunks in prop::collection::vec((0u32..300, 0u8..3), 0..40)) {
            let mut vad = Vad::new(VadConfig { pause_ms: 250, ..VadConfig::new(RATE) });
            let mut speaking = false;
            let mut paused = false;
            for (ms, level) in chunks {
                for event in vad.push(&tone(ms, [0.0, 0.01, 0.5][level as usize])) {
                    match event {
                        VadEvent::SpeechStarted { .. } => { prop_assert!(!speaking); speaking = true; }
                        VadEvent::Utterance { start_ms, end_ms, .. } => { prop_assert!(speaking); prop_assert!(end_ms >= start_ms); speaking = false; paused = false; }
                        VadEvent::Paused { start_ms, end_ms, .. } => { prop_assert!(speaking && !paused); prop_assert!(end_ms >= start_ms); paused = true; }
                        VadEvent::Resumed => { prop_assert!(speaking && paused); paused = false; }
                    }
                }
            }
        }

        #[test]
        fn classify_never_panics(text in "\\PC{0,40}", ms in 0u64..5000) {
            let _ = classify(&text, ms, &BackchannelConfig::default());
        }

        #[test]
        fn word_errors_are_a_distance(a in "[a-c ]{0,20}", b in "[a-c ]{0,20}") {
            let (ab, ra) = word_errors(&a, &b);
            let (ba, rb) = word_errors(&b, &a);
            prop_assert_eq!(ab, ba);
            prop_assert_eq!(word_errors(&a, &a).0, 0);
            prop_assert!(ab <= ra.max(rb));
        }

        #[test]
        fn cleaned_text_has_no_brackets_or_runs_of_space(text in "\\PC{0,60}") {
            let clean = clean_transcript(&text);
            prop_assert!(!clean.contains(['[', '(', '*']));
            prop_assert!(!clean.contains("  "));
            prop_assert_eq!(clean.trim(), clean.as_str());
        }

        /// Dropping a repeat loses nothing else: a text without one comes back as it was.
        #[test]
        fn a_text_without_repeats_is_kept(words in prop::collection::vec("[a-z]{1,6}[.?]?", 0..12)) {
            let text = words.join(" ");
            let sentences: Vec<String> = text
                .split_inclusive(['.', '?'])
                .map(|s| s.chars().filter(|c| c.is_alphanumeric()).collect())
                .collect();
            let repeats = sentences.windows(2).any(|w| !w[0].is_empty() && w[0] == w[1]);
            if !repeats {
                prop_assert_eq!(clean_transcript(&text), text.trim());
            }
        }
    }
}
