//! The controller's settings from its environment: the policy (`DORA_POLICY_PATTERN`),
//! the humans, the timeouts and how far the voice may fall behind.

use conference_core::ControllerSetup;
use eyre::{bail, eyre};
use turn_policy::{Policy, Viability};

/// The setup the core is built from, checked: a pattern that parses and names someone
/// the controller can hand the turn to.
pub fn from_env() -> eyre::Result<ControllerSetup> {
    let pattern = std::env::var("DORA_POLICY_PATTERN").map_err(|_| {
        eyre!(
            "DORA_POLICY_PATTERN is not set; e.g. \"[(human, 0.001), (tutor, *), (student1, 1)]\""
        )
    })?;
    let policy = Policy::parse(&pattern).map_err(|e| eyre!("DORA_POLICY_PATTERN: {e}"))?;
    let secs_ms = |key: &str, default: f64| -> eyre::Result<u64> {
        Ok(node_kit::env_secs(key, default)?.as_millis() as u64)
    };
    let mut setup = ControllerSetup {
        pattern: pattern.clone(),
        humans: node_kit::env_opt("HUMAN_PARTICIPANTS")
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default(),
        turn_timeout_ms: secs_ms("TURN_TIMEOUT_SECS", 60.0)?,
        human_timeout_ms: secs_ms(
            "HUMAN_TIMEOUT_SECS",
            conference_core::HOLD_LIMIT.as_secs_f64(),
        )?,
        max_unplayed: node_kit::env_opt("MAX_UNPLAYED_TURNS")
            .map(|v| v.trim().parse::<usize>())
            .transpose()
            .map_err(|e| eyre!("MAX_UNPLAYED_TURNS is not a whole number: {e}"))?,
        // 0 turns off the retry: a silent participant then only returns by speaking.
        absent_retry_turns: Some(node_kit::env_parse::<u32>("ABSENT_RETRY_TURNS", 8)?),
        turn_resend_ms: conference_core::TURN_RESEND.as_millis() as u64,
    };
    // The core's own rule for it (0: never).
    if let Some(value) = node_kit::env_opt("TURN_RESEND_SECS") {
        setup.set("TURN_RESEND_SECS", &value)?;
    }
    tracing::info!(policy = %policy, mode = policy.mode_name(), "conference controller starting");
    match setup.engine()?.viability() {
        Viability::Conversation => {}
        Viability::OneSpeaker(name) => tracing::warn!(
            participant = %name,
            "only `{name}` can be handed the turn and never twice in a row: after each of its turns the conversation waits for a human"
        ),
        Viability::NoTurns => bail!(
            "DORA_POLICY_PATTERN {pattern:?} names no participant the controller can hand the turn to (humans take the floor by speaking); add an agent"
        ),
    }
    Ok(setup)
}
