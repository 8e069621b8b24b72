//! The console's settings, read from the environment once at start.

use std::net::{IpAddr, Ipv4Addr};

use console_core::Config;
use eyre::eyre;

pub struct Settings {
    pub ip: IpAddr,
    pub port: u16,
    /// Required for a non-loopback address.
    pub token: Option<String>,
    /// Frames queued per page.
    pub queue: usize,
    pub config: Config,
}

impl Settings {
    /// `CONSOLE_ADDR` (127.0.0.1), `CONSOLE_PORT` (8777), `CONSOLE_TOKEN`, `CONSOLE_QUEUE`
    /// (512), `HUMAN_SPEAKER` (human).
    pub fn from_env() -> eyre::Result<Self> {
        let ip: IpAddr = match node_kit::env_opt("CONSOLE_ADDR") {
            None => IpAddr::V4(Ipv4Addr::LOCALHOST),
            Some(a) if a.trim().eq_ignore_ascii_case("localhost") => {
                IpAddr::V4(Ipv4Addr::LOCALHOST)
            }
            Some(a) => a
                .trim()
                .parse()
                .map_err(|e| eyre!("CONSOLE_ADDR={a:?} is not an IP address: {e}"))?,
        };
        let port: u16 = node_kit::env_parse("CONSOLE_PORT", 8777)?;
        let token = node_kit::env_opt("CONSOLE_TOKEN").map(|t| t.trim().to_owned());
        console_core::auth::bind_allowed(ip, token.as_deref()).map_err(|e| eyre!("{e}"))?;
        let queue: usize = node_kit::env_parse("CONSOLE_QUEUE", 512)?;
        if queue == 0 {
            return Err(eyre!("CONSOLE_QUEUE must be at least 1"));
        }
        let config = Config {
            human_speaker: node_kit::env_opt("HUMAN_SPEAKER").unwrap_or_else(|| "human".to_owned()),
            ..Config::default()
        };
        Ok(Self {
            ip,
            port,
            token,
            queue,
            config,
        })
    }
}
