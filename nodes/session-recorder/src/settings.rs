//! The recorder's environment, read once at start: the agents whose context session it
//! keeps (`AGENTS`, `AGENTS_ROOT`) and whether lines wait for the player
//! (`PACE_WITH_PLAYBACK`).

use agent_context::AgentName;
use eyre::{bail, eyre};

/// The agents of the conversation's context session, and where their templates are.
pub struct Agents {
    pub names: Vec<AgentName>,
    /// The folder holding `templates/` and `session-templates/`.
    pub root: String,
}

pub struct Settings {
    /// `None` when `AGENTS` is not set (the dataflow keeps its context elsewhere, or none).
    pub agents: Option<Agents>,
    /// Lines wait for the player's report of what was heard.
    pub paced: bool,
}

impl Settings {
    /// `played_wired`: the player's report is an input, which paces by default.
    pub fn from_env(played_wired: bool) -> eyre::Result<Self> {
        Ok(Self {
            agents: agents()?,
            paced: node_kit::env_flag("PACE_WITH_PLAYBACK", played_wired)?,
        })
    }
}

fn agents() -> eyre::Result<Option<Agents>> {
    let Some(list) = node_kit::env_opt("AGENTS") else {
        return Ok(None);
    };
    let root = node_kit::env_opt("AGENTS_ROOT").ok_or_else(|| {
        eyre!("AGENTS is set but AGENTS_ROOT is not (the folder holding templates/ and session-templates/)")
    })?;
    let names = list
        .split([',', ' '])
        .filter(|a| !a.is_empty())
        .map(|a| AgentName::new(a).map_err(|e| eyre!("AGENTS: `{a}`: {e}")))
        .collect::<eyre::Result<Vec<_>>>()?;
    if names.is_empty() {
        bail!("AGENTS is empty");
    }
    Ok(Some(Agents { names, root }))
}
