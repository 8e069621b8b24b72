//! The scripted presenter's settings from its environment: the script
//! (`PRESENTER_SCRIPT`), its style (`PRESENTER_STYLE`), the moderator's name
//! (`MODERATOR_NAME`) and whether the session is paced by the player (`PACE_WITH_PLAYBACK`).

use eyre::{Context, eyre};
use human_script::presenter::{PresenterScriptFile, Style, parse_presenter_script};

pub struct Settings {
    pub script: PresenterScriptFile,
    pub style: Style,
    pub moderator: String,
    /// Questions count once heard, and the presenter's own lines wait until heard.
    pub spoken: bool,
}

/// Reads the settings; a session is spoken by default when the player's report is wired
/// (`played_wired`).
pub fn from_env(played_wired: bool) -> eyre::Result<Settings> {
    let path = node_kit::env_opt("PRESENTER_SCRIPT")
        .ok_or_else(|| eyre!("PRESENTER_SCRIPT is not set (a YAML presenter script)"))?;
    let yaml = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read PRESENTER_SCRIPT file {path:?}"))?;
    let script = parse_presenter_script(&yaml).map_err(|e| eyre!("{path}: {e}"))?;
    let style = match node_kit::env_opt("PRESENTER_STYLE") {
        None => Style::Plain,
        Some(name) => Style::parse(&name).ok_or_else(|| {
            eyre!("PRESENTER_STYLE={name:?} is not a style (use plain, fast, hesitant or evasive)")
        })?,
    };
    Ok(Settings {
        script,
        style,
        moderator: node_kit::env_opt("MODERATOR_NAME")
            .unwrap_or_else(|| human_script::presenter::MODERATOR.to_owned()),
        spoken: node_kit::env_flag("PACE_WITH_PLAYBACK", played_wired)?,
    })
}
