//! The panel configuration, read from YAML.
//!
//! Every knob has a default, so an empty file is a valid panel: the moderator Diana
//! Chen and the three panelists Marcus Webb (skeptic), Priya Sharma (analyst) and
//! James O'Brien (contrarian), moderate intensity, section breaks, 20 minutes.
//! An agent entry needs `name` and `role`; unknown fields are errors so that typos
//! do not silently fall back to defaults.
//!
//! ```yaml
//! language: zh                  # en | zh: the moderator's lines
//! intensity: adversarial        # friendly | moderate | adversarial
//! mode: free_flow               # section_breaks | hand_raise | free_flow
//! session_duration_s: 900
//! slide_minutes: [0.5, 2, 2, 3]  # the time planned for each slide, in deck order
//! agents:
//!   - name: skeptic
//!     display_name: Marcus Webb
//!     role: skeptic
//!     focus: [revenue, margin, burn rate, valuation]
//! thresholds:
//!   silence_ms: 2500
//! ```

use serde::{Deserialize, Serialize};

/// Panelist archetype; also the tie-break rotation order (skeptic → analyst → contrarian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Skeptic,
    Analyst,
    Contrarian,
}

impl Role {
    /// Position in the tie-break rotation.
    pub fn rotation_index(self) -> usize {
        match self {
            Role::Skeptic => 0,
            Role::Analyst => 1,
            Role::Contrarian => 2,
        }
    }
}

/// How hard the panel pushes: turn limit and intervention style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Intensity {
    /// 2 agent turns; the moderator steps in after the first follow-up regardless.
    Friendly,
    /// 3 agent turns; the moderator steps in when the exchange goes in circles.
    #[default]
    Moderate,
    /// 4 agent turns; the moderator steps in only at the limit or when asked.
    Adversarial,
}

impl Intensity {
    /// Agent turns (the question plus follow-ups) allowed per exchange.
    pub fn max_agent_turns(self) -> u32 {
        match self {
            Intensity::Friendly => 2,
            Intensity::Moderate => 3,
            Intensity::Adversarial => 4,
        }
    }
}

/// When questions are asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InteractionMode {
    /// On advancing to the next slide, or when the presenter opens Q&A.
    #[default]
    SectionBreaks,
    /// Agents raise hands; the presenter acknowledges one.
    HandRaise,
    /// Agents jump in at pauses in the presenter's speech.
    FreeFlow,
}

/// One panelist.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentConfig {
    /// Identifier used in events and actions (e.g. the LLM bridge's input name).
    pub name: String,
    /// Name spoken by the moderator; defaults to `name`.
    #[serde(default)]
    pub display_name: String,
    pub role: Role,
    /// Focus-area keywords matched against slide content ("burn rate", "TAM").
    #[serde(default)]
    pub focus: Vec<String>,
}

impl AgentConfig {
    pub fn new(name: &str, display_name: &str, role: Role, focus: &[&str]) -> Self {
        Self {
            name: name.to_owned(),
            display_name: display_name.to_owned(),
            role,
            focus: focus.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// The spoken name.
    pub fn spoken_name(&self) -> &str {
        if self.display_name.trim().is_empty() {
            &self.name
        } else {
            &self.display_name
        }
    }
}

/// Timing and scoring thresholds. Times are milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Thresholds {
    /// Presenter silence that opens a free-flow interjection.
    pub silence_ms: u64,
    /// Quiet needed before the moderator speaks a notice while the presenter presents.
    pub notice_quiet_ms: u64,
    /// Minimum gap between free-flow interjections (from the end of the previous exchange).
    pub free_flow_gap_ms: u64,
    /// A raised hand counts only above this urgency (0..1).
    pub hand_raise_urgency: f64,
    /// Hands raised at once (1 or 2).
    pub max_hands_raised: usize,
    /// Exchanges per section break (1 or 2).
    pub exchanges_per_break: usize,
    /// Candidate questions below this relevance (0..1) do not start or join an exchange.
    pub min_candidate_relevance: f64,
    /// How often fresh candidate questions are requested while presenting.
    pub candidate_refresh_ms: u64,
    /// Word-set overlap (Jaccard, 0..1) of the last two answers or questions that makes
    /// an exchange circular.
    pub circular_overlap: f64,
    /// Content words a pile-on candidate must share with the finished exchange.
    pub pile_on_shared_words: usize,
    /// Time that must remain in the session for a pile-on.
    pub pile_on_min_remaining_ms: u64,
    /// No question for this long prompts engagement.
    pub engagement_prompt_ms: u64,
    /// Presenting this long without interaction suggests a pause.
    pub long_monologue_ms: u64,
    /// The last stretch of the session in which no engagement prompt is made.
    pub ending_window_ms: u64,
    /// Presenter silence after speech that ends an answer (0: only explicit answer events).
    pub answer_end_silence_ms: u64,
    /// No answer at all for this long ends the exchange.
    pub answer_timeout_ms: u64,
    /// An agent that has not finished its turn after this long is cancelled.
    pub agent_timeout_ms: u64,
    /// A moderator line not reported as played after this long counts as played.
    pub line_timeout_ms: u64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            silence_ms: 2_000,
            notice_quiet_ms: 1_000,
            free_flow_gap_ms: 20_000,
            hand_raise_urgency: 0.6,
            max_hands_raised: 2,
            exchanges_per_break: 2,
            min_candidate_relevance: 0.3,
            candidate_refresh_ms: 15_000,
            circular_overlap: 0.5,
            pile_on_shared_words: 2,
            pile_on_min_remaining_ms: 180_000,
            engagement_prompt_ms: 180_000,
            long_monologue_ms: 300_000,
            ending_window_ms: 120_000,
            answer_end_silence_ms: 2_500,
            answer_timeout_ms: 60_000,
            agent_timeout_ms: 45_000,
            line_timeout_ms: 15_000,
        }
    }
}

/// The whole panel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PanelConfig {
    /// The moderator's spoken name (`{moderator}` in phrases).
    pub moderator: String,
    /// The language of the moderator's lines: `en` (the default) or `zh`, the section
    /// of the phrase library spoken.
    pub language: conductor::phrases::Language,
    pub agents: Vec<AgentConfig>,
    pub intensity: Intensity,
    pub mode: InteractionMode,
    /// Planned session length, for "time remaining".
    pub session_duration_s: u64,
    /// Minutes planned for each slide, in deck order (the debrief sets the time each was
    /// shown against them); slides past the list have no plan.
    pub slide_minutes: Vec<f64>,
    pub thresholds: Thresholds,
}

impl Default for PanelConfig {
    fn default() -> Self {
        Self {
            moderator: "Diana Chen".to_owned(),
            language: Default::default(),
            agents: vec![
                AgentConfig::new(
                    "skeptic",
                    "Marcus Webb",
                    Role::Skeptic,
                    &[
                        "revenue",
                        "margin",
                        "burn rate",
                        "valuation",
                        "unit economics",
                        "pricing",
                    ],
                ),
                AgentConfig::new(
                    "analyst",
                    "Priya Sharma",
                    Role::Analyst,
                    &[
                        "data",
                        "metrics",
                        "growth",
                        "market size",
                        "retention",
                        "survey",
                    ],
                ),
                AgentConfig::new(
                    "contrarian",
                    "James O'Brien",
                    Role::Contrarian,
                    &[
                        "competition",
                        "assumption",
                        "risk",
                        "moat",
                        "timing",
                        "regulation",
                    ],
                ),
            ],
            intensity: Intensity::default(),
            mode: InteractionMode::default(),
            session_duration_s: 20 * 60,
            slide_minutes: Vec::new(),
            thresholds: Thresholds::default(),
        }
    }
}

/// Agents a panel may have; the selection and rotation rules assume a small panel.
pub const MAX_AGENTS: usize = 8;

/// Longest time a slide may be planned for, in minutes.
pub const MAX_SLIDE_MINUTES: f64 = 120.0;

/// Slides a plan may name (far more than a pitch holds).
pub const MAX_PLANNED_SLIDES: usize = 200;

/// Why a panel configuration is rejected.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("invalid panel YAML: {0}")]
    Yaml(#[from] serde_yaml::Error),
    #[error("the panel needs between 1 and {MAX_AGENTS} agents, found {0}")]
    AgentCount(usize),
    #[error("agent {0}: `name` is empty")]
    EmptyName(usize),
    #[error("agent name `{0}` is used twice")]
    DuplicateName(String),
    #[error("`session_duration_s` must be greater than 0")]
    ZeroDuration,
    #[error(
        "`slide_minutes`: slide {slide} has {value} minutes (each must be above 0 and at most {MAX_SLIDE_MINUTES})"
    )]
    SlideMinutes { slide: usize, value: f64 },
    #[error("`slide_minutes` plans {0} slides (at most {MAX_PLANNED_SLIDES})")]
    TooManyPlannedSlides(usize),
    #[error("threshold `{name}` = {value} is out of range ({range})")]
    Threshold {
        name: &'static str,
        value: String,
        range: &'static str,
    },
}

fn unit_interval(name: &'static str, v: f64) -> Result<(), ConfigError> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(ConfigError::Threshold {
            name,
            value: v.to_string(),
            range: "0 to 1",
        })
    }
}

fn at_least(name: &'static str, v: u64, min: u64) -> Result<(), ConfigError> {
    if v >= min {
        Ok(())
    } else {
        Err(ConfigError::Threshold {
            name,
            value: v.to_string(),
            range: if min == 1 { "at least 1" } else { "too small" },
        })
    }
}

fn one_or_two(name: &'static str, v: usize) -> Result<(), ConfigError> {
    if (1..=2).contains(&v) {
        Ok(())
    } else {
        Err(ConfigError::Threshold {
            name,
            value: v.to_string(),
            range: "1 or 2",
        })
    }
}

impl PanelConfig {
    /// Parses and validates YAML. Empty text gives the default panel.
    pub fn from_yaml(yaml: &str) -> Result<Self, ConfigError> {
        let config: PanelConfig = if yaml.trim().is_empty() {
            PanelConfig::default()
        } else {
            serde_yaml::from_str(yaml)?
        };
        config.validate()?;
        Ok(config)
    }

    /// Checks every rule the moderator relies on.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.agents.is_empty() || self.agents.len() > MAX_AGENTS {
            return Err(ConfigError::AgentCount(self.agents.len()));
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, agent) in self.agents.iter().enumerate() {
            if agent.name.trim().is_empty() {
                return Err(ConfigError::EmptyName(i + 1));
            }
            if !seen.insert(agent.name.as_str()) {
                return Err(ConfigError::DuplicateName(agent.name.clone()));
            }
        }
        if self.session_duration_s == 0 {
            return Err(ConfigError::ZeroDuration);
        }
        if self.slide_minutes.len() > MAX_PLANNED_SLIDES {
            return Err(ConfigError::TooManyPlannedSlides(self.slide_minutes.len()));
        }
        if let Some((i, &value)) = self
            .slide_minutes
            .iter()
            .enumerate()
            .find(|(_, m)| !(m.is_finite() && **m > 0.0 && **m <= MAX_SLIDE_MINUTES))
        {
            return Err(ConfigError::SlideMinutes { slide: i, value });
        }
        let t = &self.thresholds;
        unit_interval("hand_raise_urgency", t.hand_raise_urgency)?;
        unit_interval("min_candidate_relevance", t.min_candidate_relevance)?;
        unit_interval("circular_overlap", t.circular_overlap)?;
        if t.circular_overlap == 0.0 {
            return Err(ConfigError::Threshold {
                name: "circular_overlap",
                value: "0".into(),
                range: "above 0, up to 1",
            });
        }
        one_or_two("max_hands_raised", t.max_hands_raised)?;
        one_or_two("exchanges_per_break", t.exchanges_per_break)?;
        at_least("silence_ms", t.silence_ms, 1)?;
        at_least("candidate_refresh_ms", t.candidate_refresh_ms, 1)?;
        at_least("pile_on_shared_words", t.pile_on_shared_words as u64, 1)?;
        at_least("engagement_prompt_ms", t.engagement_prompt_ms, 1)?;
        at_least("long_monologue_ms", t.long_monologue_ms, 1)?;
        at_least("answer_timeout_ms", t.answer_timeout_ms, 1)?;
        at_least("agent_timeout_ms", t.agent_timeout_ms, 1)?;
        at_least("line_timeout_ms", t.line_timeout_ms, 1)?;
        Ok(())
    }

    /// The time planned for slide `slide` (from 0), if the panel plans it.
    pub fn planned_slide_ms(&self, slide: usize) -> Option<u64> {
        self.slide_minutes
            .get(slide)
            .map(|minutes| (minutes * 60_000.0).round() as u64)
    }

    /// Session length in milliseconds.
    pub fn duration_ms(&self) -> u64 {
        self.session_duration_s.saturating_mul(1000)
    }

    /// Index of the agent called `name`.
    pub fn agent_index(&self, name: &str) -> Option<usize> {
        self.agents.iter().position(|a| a.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_yaml_is_the_default_panel() {
        let c = PanelConfig::from_yaml("  \n").unwrap();
        assert_eq!(c, PanelConfig::default());
        assert_eq!(c.agents.len(), 3);
        assert_eq!(c.agents[2].spoken_name(), "James O'Brien");
    }

    #[test]
    fn partial_yaml_keeps_other_defaults() {
        let c = PanelConfig::from_yaml(
            "intensity: adversarial\nmode: hand_raise\nthresholds:\n  silence_ms: 3000\nagents:\n  - name: a\n    role: analyst\n",
        )
        .unwrap();
        assert_eq!(c.intensity, Intensity::Adversarial);
        assert_eq!(c.mode, InteractionMode::HandRaise);
        assert_eq!(c.thresholds.silence_ms, 3000);
        assert_eq!(c.thresholds.free_flow_gap_ms, 20_000);
        assert_eq!(c.agents[0].spoken_name(), "a");
        assert!(c.agents[0].focus.is_empty());
    }

    #[test]
    fn rejects_bad_panels() {
        assert!(matches!(
            PanelConfig::from_yaml("agents: []"),
            Err(ConfigError::AgentCount(0))
        ));
        assert!(matches!(
            PanelConfig::from_yaml(
                "agents:\n - {name: a, role: skeptic}\n - {name: a, role: analyst}"
            ),
            Err(ConfigError::DuplicateName(_))
        ));
        assert!(matches!(
            PanelConfig::from_yaml("thresholds: {max_hands_raised: 3}"),
            Err(ConfigError::Threshold {
                name: "max_hands_raised",
                ..
            })
        ));
        assert!(matches!(
            PanelConfig::from_yaml("thresholds: {hand_raise_urgency: 1.5}"),
            Err(ConfigError::Threshold { .. })
        ));
        assert!(matches!(
            PanelConfig::from_yaml("intensity: brutal"),
            Err(ConfigError::Yaml(_))
        ));
        assert!(matches!(
            PanelConfig::from_yaml("sesion_duration_s: 10"),
            Err(ConfigError::Yaml(_))
        ));
        assert!(matches!(
            PanelConfig::from_yaml("session_duration_s: 0"),
            Err(ConfigError::ZeroDuration)
        ));
        for bad in ["[0]", "[1, -2]", "[.nan]", "[.inf]", "[121]"] {
            assert!(
                matches!(
                    PanelConfig::from_yaml(&format!("slide_minutes: {bad}")),
                    Err(ConfigError::SlideMinutes { .. })
                ),
                "{bad}"
            );
        }
        let many = format!("slide_minutes: [{}]", vec!["1"; 201].join(", "));
        assert!(matches!(
            PanelConfig::from_yaml(&many),
            Err(ConfigError::TooManyPlannedSlides(201))
        ));
        let planned = PanelConfig::from_yaml("slide_minutes: [0.5, 2]").unwrap();
        assert_eq!(planned.planned_slide_ms(0), Some(30_000));
        assert_eq!(planned.planned_slide_ms(1), Some(120_000));
        assert_eq!(planned.planned_slide_ms(2), None);
        assert!(matches!(
            PanelConfig::from_yaml("agents:\n - {name: ' ', role: skeptic}"),
            Err(ConfigError::EmptyName(1))
        ));
    }

    #[test]
    fn turn_limits_by_intensity() {
        assert_eq!(Intensity::Friendly.max_agent_turns(), 2);
        assert_eq!(Intensity::Moderate.max_agent_turns(), 3);
        assert_eq!(Intensity::Adversarial.max_agent_turns(), 4);
    }
}
