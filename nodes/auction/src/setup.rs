//! The node's settings from its environment, read once at start into the setup the
//! conductor is built from (and that its decision log records): the configuration file,
//! the participants, the seed and the timeouts.

use std::path::Path;

use auction_core::{AuctionConfig, AuctionSetup, Timeouts};
use eyre::{bail, eyre};

/// Splits the node's own key (`participants`) off a configuration document; the rest is
/// the auction configuration (preset + overrides), validated by [`AuctionConfig`].
pub fn parse_config(text: &str) -> Result<(AuctionConfig, Vec<String>), String> {
    let mut value: serde_yaml::Value =
        serde_yaml::from_str(text).map_err(|e| format!("invalid YAML: {e}"))?;
    let mut participants = Vec::new();
    if let serde_yaml::Value::Mapping(map) = &mut value
        && let Some(list) = map.remove("participants")
    {
        participants = serde_yaml::from_value::<Vec<String>>(list)
            .map_err(|_| "`participants` must be a list of names".to_owned())?;
    }
    let rest = match value {
        serde_yaml::Value::Null => String::new(),
        v => serde_yaml::to_string(&v).map_err(|e| e.to_string())?,
    };
    let config = AuctionConfig::from_yaml(&rest).map_err(|e| e.to_string())?;
    Ok((config, participants))
}

/// Comma-separated names, trimmed, empty ones dropped.
pub fn parse_names(list: &str) -> Vec<String> {
    list.split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Reads `AUCTION_CONFIG` (file), `AUCTION_PARTICIPANTS` (overrides the file's list),
/// `AUCTION_MAX_SEGMENTS` (overrides the file's `max_segments`; 0: until stopped),
/// `AUCTION_SEED`, `SEGMENT_TIMEOUT_SECS` and `SIDE_REQUEST_TIMEOUT_SECS`.
pub fn from_env() -> eyre::Result<AuctionSetup> {
    let (mut config, mut participants) = match node_kit::env_opt("AUCTION_CONFIG") {
        Some(path) => {
            let text = std::fs::read_to_string(Path::new(&path))
                .map_err(|e| eyre!("AUCTION_CONFIG {path}: cannot read the file: {e}"))?;
            parse_config(&text).map_err(|e| eyre!("AUCTION_CONFIG {path}: {e}"))?
        }
        None => (AuctionConfig::debate_snappy(), Vec::new()),
    };
    if let Some(list) = node_kit::env_opt("AUCTION_PARTICIPANTS") {
        participants = parse_names(&list);
    }
    if participants.len() < 2 {
        bail!(
            "an auction needs at least two participants: list them in the AUCTION_CONFIG file \
             (`participants: [hawk, dove, owl]`) or in AUCTION_PARTICIPANTS"
        );
    }
    for name in &participants {
        if !name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        {
            bail!("participant name {name:?} must be letters, digits, `_` or `-`");
        }
    }
    if let Some(max) = node_kit::env_opt("AUCTION_MAX_SEGMENTS") {
        let max: u32 = max
            .trim()
            .parse()
            .map_err(|_| eyre!("AUCTION_MAX_SEGMENTS={max:?} is not a whole number"))?;
        config.max_segments = (max > 0).then_some(max);
    }
    let seed = node_kit::env_parse("AUCTION_SEED", 1u64)?;
    let timeouts = Timeouts {
        segment_ms: secs_to_ms("SEGMENT_TIMEOUT_SECS", 20.0)?,
        request_ms: secs_to_ms("SIDE_REQUEST_TIMEOUT_SECS", 10.0)?,
    };
    Ok(AuctionSetup {
        config,
        participants,
        seed,
        timeouts,
    })
}

/// The seconds in `name` (else `default`) as milliseconds, within (0, 3600] s.
fn secs_to_ms(name: &str, default: f64) -> eyre::Result<u64> {
    let secs: f64 = node_kit::env_parse(name, default)?;
    if !(secs.is_finite() && secs > 0.0 && secs <= 3600.0) {
        bail!("{name} must be within (0, 3600] seconds");
    }
    Ok((secs * 1000.0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn participants_are_split_off_and_the_rest_validated() {
        let (c, p) =
            parse_config("preset: debate_snappy\nparticipants: [hawk, dove]\nmax_segments: 9\n")
                .unwrap();
        assert_eq!(p, ["hawk", "dove"]);
        assert_eq!(c.max_segments, Some(9));
        assert!(parse_config("participants: 3").is_err());
        assert!(
            parse_config("tokens: { max_bnk: 1 }")
                .unwrap_err()
                .contains("max_bnk")
        );
        assert!(parse_config("").is_ok());
        assert_eq!(parse_names(" a, ,b "), ["a", "b"]);
    }

    #[test]
    fn a_removed_key_is_refused_by_name() {
        let err = parse_config("participants: [hawk, dove]\ntts: { voice: alloy }\n").unwrap_err();
        assert!(err.contains("`tts` is no longer a setting"), "{err}");
    }
}
