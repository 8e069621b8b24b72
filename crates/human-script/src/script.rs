//! The one script format of every simulated human: the scripted human of a study
//! session (text, voice or both) and the scripted presenter of a pitch rehearsal.
//!
//! A script is YAML: a list of steps, or a map with settings and `steps`. A step does
//! one thing: `say` a line (`text` is the same key), change to a `slide`, or send a
//! `control` command. It happens at a moment (`during_turn`: the N-th turn handed out,
//! plus `delay_ms`; `at_secs`: seconds from the start) or, without one, after the step
//! before it (plus `pause_ms`).
//!
//! ```yaml
//! speaker: presenter          # who speaks (default: `human`, the presenter's `presenter`)
//! ms_per_word: 250            # speaking time per word of a line without `speak_ms`
//! steps:
//!   - say: "Good morning, we are Acme Robotics."
//!   - slide: 1
//!     answers: ["Picking is 55 percent of labour cost."]
//!   - at_secs: 40
//!     say: "Thanks, that helps."
//! ```
//!
//! Each player takes what it can play and refuses the rest by name, so no key is
//! silently ignored: the scripted human ([`crate::parse_script`]) says lines at turns or
//! times; the presenter ([`crate::presenter::parse_presenter_script`]) runs steps in
//! order, answers questions and has its own settings (`fallback_answer`, `settle_ms`,
//! ...).

use serde::Deserialize;

/// A script file as written.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptFile {
    /// Who speaks the lines (a step's `speaker` overrides it).
    #[serde(default)]
    pub speaker: Option<String>,
    /// Speaking time per word of a line without `speak_ms`.
    #[serde(default)]
    pub ms_per_word: Option<u64>,
    /// Presenter: the answer when the script has none left.
    #[serde(default)]
    pub fallback_answer: Option<String>,
    /// Presenter: pause between steps.
    #[serde(default)]
    pub pause_ms: Option<u64>,
    /// Presenter: pause between hearing a question and answering it.
    #[serde(default)]
    pub answer_delay_ms: Option<u64>,
    /// Presenter: after a control step, time for the moderator to open Q&A.
    #[serde(default)]
    pub settle_ms: Option<u64>,
    /// Presenter: the script goes on after Q&A stayed silent this long.
    #[serde(default)]
    pub qa_timeout_ms: Option<u64>,
    /// Presenter: a spoken line counts as heard after this long without a report.
    #[serde(default)]
    pub heard_timeout_ms: Option<u64>,
    #[serde(default)]
    pub steps: Vec<Step>,
}

/// One step of a script.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// A line to say.
    #[serde(default, alias = "text")]
    pub say: Option<String>,
    /// A slide change (the control command `slide N`).
    #[serde(default)]
    pub slide: Option<usize>,
    /// Any control command (`open_qa`, `end`, ...).
    #[serde(default)]
    pub control: Option<String>,
    /// Answers to the questions that follow this step.
    #[serde(default)]
    pub answers: Option<Vec<String>>,
    /// During the N-th turn handed out (from 1), `delay_ms` after it began.
    #[serde(default)]
    pub during_turn: Option<u64>,
    /// At this many seconds from the start.
    #[serde(default)]
    pub at_secs: Option<f64>,
    /// After the turn of `during_turn` began.
    #[serde(default)]
    pub delay_ms: Option<u64>,
    /// Before a step that follows the one before it.
    #[serde(default)]
    pub pause_ms: Option<u64>,
    /// How long saying the line takes.
    #[serde(default)]
    pub speak_ms: Option<u64>,
    /// Who says this line.
    #[serde(default)]
    pub speaker: Option<String>,
}

impl Step {
    /// The keys this step sets, as written in a script.
    pub fn keys(&self) -> Vec<&'static str> {
        let set = [
            ("say", self.say.is_some()),
            ("slide", self.slide.is_some()),
            ("control", self.control.is_some()),
            ("answers", self.answers.is_some()),
            ("during_turn", self.during_turn.is_some()),
            ("at_secs", self.at_secs.is_some()),
            ("delay_ms", self.delay_ms.is_some()),
            ("pause_ms", self.pause_ms.is_some()),
            ("speak_ms", self.speak_ms.is_some()),
            ("speaker", self.speaker.is_some()),
        ];
        set.iter().filter(|(_, on)| *on).map(|(k, _)| *k).collect()
    }
}

impl ScriptFile {
    /// The presenter's settings this file sets.
    pub fn presenter_settings(&self) -> Vec<&'static str> {
        let set = [
            ("fallback_answer", self.fallback_answer.is_some()),
            ("pause_ms", self.pause_ms.is_some()),
            ("answer_delay_ms", self.answer_delay_ms.is_some()),
            ("settle_ms", self.settle_ms.is_some()),
            ("qa_timeout_ms", self.qa_timeout_ms.is_some()),
            ("heard_timeout_ms", self.heard_timeout_ms.is_some()),
        ];
        set.iter().filter(|(_, on)| *on).map(|(k, _)| *k).collect()
    }
}

/// Reads a script: a list of steps, or a map with `steps`; empty text is an empty
/// script.
pub fn parse(yaml: &str) -> Result<ScriptFile, serde_yaml::Error> {
    if yaml.trim().is_empty() {
        return Ok(ScriptFile::default());
    }
    let value: serde_yaml::Value = serde_yaml::from_str(yaml)?;
    match value {
        serde_yaml::Value::Null => Ok(ScriptFile::default()),
        serde_yaml::Value::Sequence(steps) => Ok(ScriptFile {
            steps: serde_yaml::from_value(serde_yaml::Value::Sequence(steps))?,
            ..ScriptFile::default()
        }),
        other => serde_yaml::from_value(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_and_map_forms_read_the_same_steps() {
        let list = parse("- during_turn: 2\n  text: Hi\n- say: Bye\n").unwrap();
        let map = parse("steps:\n  - during_turn: 2\n    say: Hi\n  - text: Bye\n").unwrap();
        assert_eq!(list, map);
        assert_eq!(list.steps[0].keys(), ["say", "during_turn"]);
        assert!(parse("").unwrap().steps.is_empty());
        assert!(parse("~").unwrap().steps.is_empty());
    }

    #[test]
    fn unknown_keys_are_errors_with_their_name() {
        let e = parse("- at_secs: 1\n  txt: a\n").unwrap_err().to_string();
        assert!(e.contains("txt"), "{e}");
        let e = parse("speakr: a\nsteps: []\n").unwrap_err().to_string();
        assert!(e.contains("speakr"), "{e}");
        assert!(
            parse("- say: a\n  text: b\n").is_err(),
            "say and text are one key"
        );
    }
}
