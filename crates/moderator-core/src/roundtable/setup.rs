//! What a roundtable is built from, recorded at the head of its decision log so that a
//! replay builds the same one.

use super::{Config, Roundtable};
use crate::phrases::{LoadReport, RoundtablePhrases};
use crate::scenario::Scenario;

/// The name of the roundtable moderator's decision logs (their `setup` line's `format`).
pub const ROUNDTABLE_FORMAT: &str = "roundtable-moderator";

/// Everything a [`Roundtable`] is built from.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RoundtableSetup {
    /// The scenario file's text (`SCENARIO`), not its path: the replay needs no file.
    pub scenario_yaml: String,
    pub config: Config,
    /// The phrase library's text (`PHRASES`); empty: the built-in lines.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub phrases: String,
}

impl RoundtableSetup {
    pub fn build(&self) -> Result<Roundtable, String> {
        self.build_reporting().map(|(roundtable, _)| roundtable)
    }

    /// [`RoundtableSetup::build`], with what the phrase library skipped or leaves out in
    /// the scenario's language, for the node to report.
    pub fn build_reporting(&self) -> Result<(Roundtable, LoadReport), String> {
        let scenario = Scenario::from_yaml(&self.scenario_yaml).map_err(|e| e.to_string())?;
        let (phrases, report) = RoundtablePhrases::load(&self.phrases, scenario.language);
        Ok((
            Roundtable::with_phrases(scenario, self.config, phrases),
            report,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roundtable::Output;

    #[test]
    fn the_setup_loads_its_phrase_file_once_in_the_scenarios_language_and_reports_it() {
        let setup = RoundtableSetup {
            scenario_yaml: "topic: 城市应该禁车吗\nlanguage: zh\nagents:\n  - id: a\n  - id: b\n"
                .into(),
            config: Config {
                paced: false,
                max_unplayed: 1,
                playback_timeout_ms: 5_000,
            },
            phrases: "# 中文\n\n## closing\n- 谢谢{names}，再见。\n## warning\n- {nom}？\n".into(),
        };
        let (mut roundtable, report) = setup.build_reporting().unwrap();
        assert_eq!(report.language, crate::phrases::Language::Zh);
        assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
        assert!(
            report.left_out.contains(&"warning"),
            "{:?}",
            report.left_out
        );
        assert!(!report.left_out.contains(&"closing"));
        // The roundtable speaks the file's line, in the scenario's language.
        roundtable.start(0);
        let out = roundtable.on_control("stop", 1);
        let wake = roundtable.next_wake().unwrap_or(1);
        let out: Vec<Output> = out.into_iter().chain(roundtable.tick(wake)).collect();
        assert!(
            out.iter()
                .any(|o| matches!(o, Output::Line { text, .. } if text == "谢谢a和b，再见。")),
            "{out:?}"
        );
    }
}
