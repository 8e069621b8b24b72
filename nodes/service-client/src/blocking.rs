//! One request, one answer, on the caller's thread: transcriptions and speech, called
//! from their nodes' worker threads.

use std::{io::Read, time::Duration};

use reqwest::blocking::{Client, RequestBuilder, multipart::Form};

use crate::{
    MAX_ERROR_BODY_BYTES, ServiceError, ServiceSettings, error_message, settings::Timeout,
    without_url,
};
use voice_protocol::Redactor;

/// A service called with blocking requests, each bounded as a whole.
pub struct BlockingClient {
    settings: ServiceSettings,
    redactor: Redactor,
    http: Client,
}

impl BlockingClient {
    /// A client whose every call, answer included, ends within `request_timeout`.
    pub fn new(settings: ServiceSettings, request_timeout: Duration) -> Result<Self, ServiceError> {
        let redactor = settings.redactor();
        let http = Timeout::Request(request_timeout).client(Client::builder(), &redactor)?;
        Ok(Self {
            settings,
            redactor,
            http,
        })
    }

    pub fn settings(&self) -> &ServiceSettings {
        &self.settings
    }

    /// `text` without the key or the URL's credentials: for the caller's own messages
    /// about an answer.
    pub fn redact(&self, text: &str) -> String {
        self.redactor.redact(text)
    }

    /// POSTs `body` as JSON to `path`; the whole answer's body on success.
    pub fn post_json(&self, path: &str, body: &serde_json::Value) -> Result<Vec<u8>, ServiceError> {
        self.post(path, |request| {
            request
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.to_string())
        })
    }

    /// POSTs a multipart `form` to `path`; the whole answer's body on success.
    pub fn post_multipart(&self, path: &str, form: Form) -> Result<Vec<u8>, ServiceError> {
        self.post(path, |request| request.multipart(form))
    }

    fn post(
        &self,
        path: &str,
        build: impl FnOnce(RequestBuilder) -> RequestBuilder,
    ) -> Result<Vec<u8>, ServiceError> {
        let url = self.settings.url(path);
        self.call(&url, build)
            .map_err(|e| e.redacted(&self.redactor))
    }

    fn call(
        &self,
        url: &str,
        build: impl FnOnce(RequestBuilder) -> RequestBuilder,
    ) -> Result<Vec<u8>, ServiceError> {
        let service = self.settings.service;
        let mut request = build(self.http.post(url));
        if let Some(key) = &self.settings.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().map_err(|e| ServiceError::Unreachable {
            service,
            url: url.to_owned(),
            reason: without_url(&e),
        })?;
        let status = response.status();
        if !status.is_success() {
            // At most the bound, whatever the body's length; a read that fails keeps what
            // came before it.
            let mut body = Vec::new();
            let _ = response
                .take(MAX_ERROR_BODY_BYTES as u64)
                .read_to_end(&mut body);
            tracing::debug!(service, %status, bytes = body.len(), "error answer");
            return Err(ServiceError::Status {
                service,
                status,
                message: error_message(&body),
            });
        }
        let body = response.bytes().map_err(|e| ServiceError::BrokenBody {
            service,
            reason: without_url(&e),
        })?;
        Ok(body.to_vec())
    }
}
