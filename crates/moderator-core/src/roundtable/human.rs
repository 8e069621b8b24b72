//! The human at the table. Their first sound holds whatever voice sounds (the player's
//! `pause`, through [`::conductor::Floor`], as in every conductor), a backchannel or a
//! transcript with no words lets it go on, and their words take the floor: what was
//! unheard or still being written is cut (an interrupt), the words are said to everyone,
//! and they are answered first, without an intent round, by the panelist they named,
//! else the one they talked over or heard last. The rounds go on from that answer.

use super::decision::{Decision, ModeratorAction};
use super::{MAX_KEPT_CHARS, Notice, Output, Roundtable, state};
use crate::phrases::Language;
use voice_protocol::messages::HeardSpan;

impl Roundtable {
    /// The player began to sound line `question_id`.
    pub fn on_playback_started(&mut self, question_id: u64) -> Vec<Output> {
        self.human_floor.voice_started(question_id);
        Vec::new()
    }

    /// The human's voice began: a voice that sounds is held.
    pub fn on_speech_started(&mut self, onset_us: Option<i64>, now_ms: u64) -> Vec<Output> {
        self.human_floor
            .speech_started(onset_us, now_ms)
            .map(Output::Floor)
            .into_iter()
            .collect()
    }

    /// The human only acknowledged: a held voice goes on.
    pub fn on_backchannel(&mut self) -> Vec<Output> {
        self.human_floor
            .no_words()
            .map(Output::Floor)
            .into_iter()
            .collect()
    }

    /// The human's final words (`speaker`: their name, when the source gives one).
    pub fn on_human(
        &mut self,
        speaker: Option<String>,
        text: &str,
        heard: Option<HeardSpan>,
        now_ms: u64,
    ) -> Vec<Output> {
        let mut out = Vec::new();
        let text: String = text.trim().chars().take(MAX_KEPT_CHARS).collect();
        if text.is_empty() {
            out.push(Output::Notice(Notice::EmptyTranscript));
            out.extend(self.human_floor.no_words().map(Output::Floor));
            return out;
        }
        let speaker = speaker
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| voice_protocol::ids::HUMAN.to_owned());
        if self.close.ending.is_some() || self.is_ended() {
            // The closing is not cut: the words are kept, nobody answers them.
            out.extend(self.human_floor.no_words().map(Output::Floor));
            out.push(Output::Notice(Notice::HumanAfterEnd));
            self.say_human(speaker, text, heard, &mut out);
            return out;
        }
        let held = self.human_floor.words();
        let cut = self.next_question_id();
        out.push(Output::Interrupt { question_id: cut });
        let talked_over = self.end_cut_turn(&mut out);
        let heard_last = self
            .state
            .last_speaker
            .clone()
            .filter(|s| self.scenario().agent(s).is_some());
        self.say_human(speaker, text.clone(), heard, &mut out);
        self.state = state::update_state_after_human(&self.state);
        let answerer = self
            .named_in(&text)
            .or(talked_over)
            .or(heard_last)
            .or_else(|| self.scenario().agents.first().map(|a| a.id.clone()));
        let phase = self.state.phase.phase_type();
        let answerer = answerer.filter(|_| phase.is_some());
        out.push(Output::Notice(Notice::HumanSpoke {
            cut,
            held,
            answerer: answerer.clone(),
        }));
        if let (Some(agent), Some(kind)) = (answerer, phase) {
            let decision = Decision {
                action: ModeratorAction::AllowSpeech,
                target: Some(agent.clone()),
                reason: "the human spoke: answered first".to_owned(),
                next_phase: None,
                is_interrupt: false,
                is_rollback: false,
            };
            self.record(&decision, now_ms, &mut out);
            self.answers_to_human += 1;
            let scenario = self.scenario();
            let instruction = self.phrases.answering_human(
                scenario.language,
                kind,
                &scenario.topic,
                scenario.phase(kind).and_then(|c| c.instruction.as_deref()),
                self.human_name(),
                &text,
            );
            self.said.pending_prompt = None;
            self.hand_turn(agent, instruction, false, true, now_ms, &mut out);
        }
        out
    }

    /// The human's words, to everyone and into the record; they are not voiced.
    fn say_human(
        &mut self,
        speaker: String,
        text: String,
        heard: Option<HeardSpan>,
        out: &mut Vec<Output>,
    ) {
        let question_id = self.next_question_id();
        self.said.last_said = Some((speaker.clone(), text.clone()));
        out.push(Output::Utterance {
            speaker,
            question_id,
            text,
            human: true,
            heard,
        });
    }

    /// Ends the turn that the human's words cut: a finished utterance waiting to be
    /// heard, or one still being written (what it wrote so far is its utterance). It
    /// counts as said if any of it was heard (with no player: if it said anything); a
    /// turn nobody heard was not the agent's to lose, and is no absence either. The
    /// lines not yet heard are cut with it. Returns whose turn it was, if it counts.
    fn end_cut_turn(&mut self, out: &mut Vec<Output>) -> Option<String> {
        let was_heard = |c: &Self, question_id: u64| {
            !c.config.paced
                || c.human_floor.is_sounding(question_id)
                || !c.pacing.unplayed.contains(question_id)
        };
        self.intake = None;
        let held = self.pacing.held.take();
        let held_heard = held
            .as_ref()
            .is_some_and(|h| was_heard(self, h.question_id));
        for (question_id, line) in self.pacing.unplayed.take() {
            if let Some(line) = line.filter(|_| !self.human_floor.is_sounding(question_id)) {
                self.said.cut_lines.push(line);
            }
        }
        if let Some(held) = held {
            if held_heard {
                return self.close_speech(Some(held.text));
            }
            self.stage = super::round::Stage::Deciding;
            return None;
        }
        let floor = self.floor.take()?;
        let text = floor.text.as_str().trim().to_owned();
        // Still being written: heard only if its first sentences sound already.
        if text.is_empty()
            || (self.config.paced && !self.human_floor.is_sounding(floor.question_id))
        {
            self.stage = super::round::Stage::Deciding;
            return None;
        }
        out.push(Output::Utterance {
            speaker: floor.agent.clone(),
            question_id: floor.question_id,
            text: text.clone(),
            human: false,
            heard: None,
        });
        self.close_speech(Some(text))
    }

    /// The first agent the words name (its id, its name, or a part of its name).
    fn named_in(&self, text: &str) -> Option<String> {
        let words = text::words::words(text);
        self.scenario()
            .agents
            .iter()
            .filter_map(|agent| {
                let mut names = vec![
                    text::words::words(&agent.id),
                    text::words::words(&agent.name),
                ];
                names.extend(
                    text::words::words(&agent.name)
                        .into_iter()
                        .filter(|w| w.chars().count() >= 3 && text::words::is_content_word(w))
                        .filter(|w| !TITLES.contains(&w.as_str()))
                        .map(|w| vec![w]),
                );
                names
                    .iter()
                    .filter(|n| !n.is_empty())
                    .filter_map(|n| position(&words, n))
                    .min()
                    .map(|at| (at, agent.id.clone()))
            })
            .min()
            .map(|(_, id)| id)
    }

    fn human_name(&self) -> &str {
        match (&self.scenario().human, self.language()) {
            (Some(name), _) => name,
            (None, Language::En) => "our guest",
            (None, Language::Zh) => "来宾",
        }
    }
}

/// Titles before a name, which name nobody in particular.
const TITLES: &[&str] = &["dr", "prof", "professor", "mr", "mrs", "ms", "miss", "sir"];

/// Where `phrase` first occurs in `words`.
fn position(words: &[String], phrase: &[String]) -> Option<usize> {
    words.windows(phrase.len()).position(|w| w == phrase)
}
