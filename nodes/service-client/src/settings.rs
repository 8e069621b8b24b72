//! Where a service is and how it is called, from the node's environment.

use std::time::Duration;

use voice_protocol::Redactor;

/// The base URL when `<PREFIX>_BASE_URL` is not set.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// The variable holding the key when `<PREFIX>_API_KEY_ENV` is not set.
pub const DEFAULT_KEY_ENV: &str = "OPENAI_API_KEY";

/// One service: what messages call it, its base URL, its key and its model.
#[derive(Clone)]
pub struct ServiceSettings {
    /// What the messages call it: "model service", "speech service" ...
    pub service: &'static str,
    pub base_url: String,
    pub api_key: Option<String>,
    /// The variable the key is read from: its name, which may be logged.
    pub key_env: String,
    /// `<PREFIX>_MODEL`; each node has its own default or requires it.
    pub model: Option<String>,
}

// The key must never reach a log line.
impl std::fmt::Debug for ServiceSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceSettings")
            .field("service", &self.service)
            .field("base_url", &self.redactor().redact(&self.base_url))
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("key_env", &self.key_env)
            .field("model", &self.model)
            .finish()
    }
}

impl ServiceSettings {
    /// The settings under `prefix` (`LLM`, `ASR`, `TTS`): `<PREFIX>_BASE_URL`
    /// ([`DEFAULT_BASE_URL`]), `<PREFIX>_MODEL`, and the key from the variable that
    /// `<PREFIX>_API_KEY_ENV` names ([`DEFAULT_KEY_ENV`]); the users' dataflows set these.
    pub fn from_env(prefix: &str, service: &'static str) -> Self {
        let var = |name: &str| node_kit::env_opt(&format!("{prefix}_{name}"));
        let key_env = var("API_KEY_ENV").unwrap_or_else(|| DEFAULT_KEY_ENV.to_owned());
        Self {
            service,
            base_url: var("BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.to_owned()),
            api_key: node_kit::env_opt(&key_env),
            key_env,
            model: var("MODEL"),
        }
    }

    /// The address of `path` (`chat/completions`) under the base URL.
    pub fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.base_url.trim_end_matches('/'))
    }

    /// What keeps this service's key and URL credentials out of messages.
    pub fn redactor(&self) -> Redactor {
        Redactor::new(self.api_key.as_deref(), &self.base_url)
    }
}

/// The limit of one HTTP client: a blocking call is bounded as a whole; a stream only
/// while it connects (then by its own limits, [`crate::StreamLimits`]).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Timeout {
    Request(Duration),
    Connect(Duration),
}

impl Timeout {
    /// A client of reqwest's blocking or async kind with this limit; its error redacted.
    pub(crate) fn client<B: ClientBuilder>(
        self,
        builder: B,
        redactor: &Redactor,
    ) -> Result<B::Client, crate::ServiceError> {
        let builder = match self {
            Self::Request(limit) => builder.timeout(limit),
            Self::Connect(limit) => builder.connect_timeout(limit),
        };
        builder
            .build()
            .map_err(|e| crate::ServiceError::Client(crate::without_url(&e)).redacted(redactor))
    }
}

/// reqwest's two client builders, so that one rule sets both up.
pub(crate) trait ClientBuilder: Sized {
    type Client;
    fn connect_timeout(self, timeout: Duration) -> Self;
    fn timeout(self, timeout: Duration) -> Self;
    fn build(self) -> reqwest::Result<Self::Client>;
}

impl ClientBuilder for reqwest::ClientBuilder {
    type Client = reqwest::Client;
    fn connect_timeout(self, timeout: Duration) -> Self {
        self.connect_timeout(timeout)
    }
    fn timeout(self, timeout: Duration) -> Self {
        self.timeout(timeout)
    }
    fn build(self) -> reqwest::Result<reqwest::Client> {
        self.build()
    }
}

impl ClientBuilder for reqwest::blocking::ClientBuilder {
    type Client = reqwest::blocking::Client;
    fn connect_timeout(self, timeout: Duration) -> Self {
        self.connect_timeout(timeout)
    }
    fn timeout(self, timeout: Duration) -> Self {
        self.timeout(timeout)
    }
    fn build(self) -> reqwest::Result<reqwest::blocking::Client> {
        self.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_debug_form_names_no_key() {
        let settings = ServiceSettings {
            service: "speech service",
            base_url: "http://user:pw-77@localhost/v1/".into(),
            api_key: Some("sk-never-shown".into()),
            key_env: "TEST_KEY".into(),
            model: Some("tts-1".into()),
        };
        let shown = format!("{settings:?}");
        assert!(
            !shown.contains("sk-never-shown") && !shown.contains("pw-77"),
            "{shown}"
        );
        assert_eq!(
            settings.url("audio/speech"),
            "http://user:pw-77@localhost/v1/audio/speech"
        );
    }
}
