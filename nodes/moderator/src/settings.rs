//! The moderator's settings from its environment: the scenario (`SCENARIO`), the phrase
//! library (`PHRASES`) and the pacing by the player (`PACE_WITH_PLAYBACK`,
//! `MAX_UNPLAYED_TURNS`, `PLAYBACK_TIMEOUT_SECS`), read once at start into the setup the
//! roundtable is built from (and that its decision log records).

use eyre::{Context, eyre};
use moderator_core::Scenario;
use moderator_core::roundtable::{Config, RoundtableSetup};

pub struct Settings {
    pub scenario: Scenario,
    pub setup: RoundtableSetup,
    /// The phrase library's file, if `PHRASES` names one (its text is in the setup).
    pub phrases_file: Option<String>,
}

/// Reads the settings; pacing by the player is on by default when its `playback_done`
/// is wired (`playback_wired`).
pub fn from_env(playback_wired: bool) -> eyre::Result<Settings> {
    let (scenario, scenario_yaml) = load_scenario()?;
    let config = Config {
        paced: node_kit::env_flag("PACE_WITH_PLAYBACK", playback_wired)?,
        max_unplayed: node_kit::env_parse("MAX_UNPLAYED_TURNS", 1usize)?,
        playback_timeout_ms: node_kit::env_secs("PLAYBACK_TIMEOUT_SECS", 30.0)?.as_millis() as u64,
    };
    // The phrase library `PHRASES` names (none: the built-in lines), loaded once, by the
    // setup the replay builds from too.
    let phrases = node_kit::conduct::read_phrases("PHRASES")?;
    let (phrases_file, phrases) = match phrases {
        Some((path, text)) => (Some(path), text),
        None => (None, String::new()),
    };
    Ok(Settings {
        scenario,
        setup: RoundtableSetup {
            scenario_yaml,
            config,
            phrases,
        },
        phrases_file,
    })
}

/// The scenario file named by `SCENARIO` (and its text), with the file and the problem in
/// any error.
fn load_scenario() -> eyre::Result<(Scenario, String)> {
    let path = node_kit::env_opt("SCENARIO").ok_or_else(|| {
        eyre!(
            "SCENARIO is not set; point it at a scenario YAML file (e.g. scenarios/roundtable.yml)"
        )
    })?;
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read the scenario file {path:?} (SCENARIO)"))?;
    let scenario =
        Scenario::from_yaml(&text).map_err(|e| eyre!("invalid scenario file {path:?}: {e}"))?;
    Ok((scenario, text))
}
