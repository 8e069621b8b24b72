//! The presenter's script file: the one script format's steps, as the presenter plays
//! them, and its settings with their defaults.

use crate::script::{self, ScriptFile};

/// A step as the presenter plays it: exactly one of `say`, `slide` or `control`.
#[derive(Debug, Clone, PartialEq)]
pub struct PresenterStep {
    pub say: Option<String>,
    pub slide: Option<usize>,
    pub control: Option<String>,
    /// Answers to the questions that follow this step.
    pub answers: Option<Vec<String>>,
    /// Pause before this step.
    pub pause_ms: Option<u64>,
    /// Not before this time from the start.
    pub at_secs: Option<f64>,
    /// How long saying the line takes in a text session.
    pub speak_ms: Option<u64>,
}

/// A presenter script with its settings resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct PresenterScriptFile {
    pub speaker: String,
    pub fallback_answer: String,
    /// Pause between steps (default 300 ms).
    pub pause_ms: u64,
    /// Pause between hearing a question and answering it (default 600 ms).
    pub answer_delay_ms: u64,
    /// Speaking time per word in text sessions (default 250 ms).
    pub ms_per_word: u64,
    /// After a control step, time for the moderator to open Q&A (default 800 ms).
    pub settle_ms: u64,
    /// The script goes on after Q&A stayed silent this long (default 60 s).
    pub qa_timeout_ms: u64,
    /// A spoken line counts as heard after this long without a report (default 30 s).
    pub heard_timeout_ms: u64,
    pub steps: Vec<PresenterStep>,
}

const DEFAULT_FALLBACK: &str =
    "Good question. Let's move on, and I'll follow up after the session.";

#[derive(Debug, thiserror::Error)]
pub enum PresenterScriptError {
    #[error("invalid presenter script: {0}")]
    Yaml(#[from] serde_yaml::Error),
    #[error("presenter script step {step}: give exactly one of `say`, `slide` or `control`")]
    Kind { step: usize },
    #[error("presenter script step {step}: empty text")]
    Empty { step: usize },
    #[error(
        "presenter script step {step}: the presenter runs steps in order and has no turns; {keys:?} are for the scripted human"
    )]
    NotForPresenter {
        step: usize,
        keys: Vec<&'static str>,
    },
    #[error("presenter script step {step}: `at_secs` must be a finite number ≥ 0")]
    Time { step: usize },
}

/// Parses a script for the presenter and checks that it can play every step.
pub fn parse_presenter_script(yaml: &str) -> Result<PresenterScriptFile, PresenterScriptError> {
    let file: ScriptFile = script::parse(yaml)?;
    let mut steps = Vec::with_capacity(file.steps.len());
    for (i, step) in file.steps.into_iter().enumerate() {
        let n = i + 1;
        let foreign: Vec<&'static str> = step
            .keys()
            .into_iter()
            .filter(|k| ["during_turn", "delay_ms", "speaker"].contains(k))
            .collect();
        if !foreign.is_empty() {
            return Err(PresenterScriptError::NotForPresenter {
                step: n,
                keys: foreign,
            });
        }
        let kinds = [
            step.say.is_some(),
            step.slide.is_some(),
            step.control.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err(PresenterScriptError::Kind { step: n });
        }
        let blank = |s: &Option<String>| s.as_ref().is_some_and(|t| t.trim().is_empty());
        if blank(&step.say)
            || blank(&step.control)
            || step
                .answers
                .as_ref()
                .is_some_and(|a| a.iter().any(|t| t.trim().is_empty()))
        {
            return Err(PresenterScriptError::Empty { step: n });
        }
        if step.at_secs.is_some_and(|s| !s.is_finite() || s < 0.0) {
            return Err(PresenterScriptError::Time { step: n });
        }
        steps.push(PresenterStep {
            say: step.say,
            slide: step.slide,
            control: step.control,
            answers: step.answers,
            pause_ms: step.pause_ms,
            at_secs: step.at_secs,
            speak_ms: step.speak_ms,
        });
    }
    Ok(PresenterScriptFile {
        speaker: file.speaker.unwrap_or_else(|| "presenter".to_owned()),
        fallback_answer: file
            .fallback_answer
            .unwrap_or_else(|| DEFAULT_FALLBACK.to_owned()),
        pause_ms: file.pause_ms.unwrap_or(300),
        answer_delay_ms: file.answer_delay_ms.unwrap_or(600),
        ms_per_word: file.ms_per_word.unwrap_or(250),
        settle_ms: file.settle_ms.unwrap_or(800),
        qa_timeout_ms: file.qa_timeout_ms.unwrap_or(60_000),
        heard_timeout_ms: file.heard_timeout_ms.unwrap_or(30_000),
        steps,
    })
}
