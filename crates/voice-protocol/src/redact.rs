//! Keeping credentials out of log lines and error messages. A model service may quote
//! what it was sent (a 401 body "Incorrect API key provided: Bearer sk-…", an SSE
//! `error` event), and a configured base URL may carry a userinfo or a `?key=` query:
//! every message built from either passes through [`redact`] before it is logged or sent.

/// What a redacted span becomes, unless a secret contains one of its characters.
const MARKER: &str = "***";

/// The credentials of one service client: its API key and the parts of its base URL that
/// authenticate (userinfo, query values).
#[derive(Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

// The secrets themselves must not reach a log line through `{:?}`.
impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor")
            .field("secrets", &self.secrets.len())
            .finish()
    }
}

impl Redactor {
    pub fn new(api_key: Option<&str>, base_url: &str) -> Self {
        let mut secrets: Vec<String> = api_key.into_iter().map(str::to_owned).collect();
        secrets.extend(url_secrets(base_url));
        secrets.retain(|s| !s.is_empty());
        secrets.sort_unstable();
        secrets.dedup();
        Self { secrets }
    }

    /// `text` without any of the secrets, URL credentials or bearer tokens.
    pub fn redact(&self, text: &str) -> String {
        redact(text, &self.secrets)
    }
}

/// Replaces, with `***`:
/// - every occurrence of each non-empty secret, however short (overlapping ones too);
/// - the userinfo of any URL in the text (`https://user:pass@host` → `https://***@host`)
///   and its query values (`?key=abc&x=1` → `?key=***&x=***`);
/// - the token after `Bearer ` (case-insensitive) when it is at least 8 characters long.
///
/// No secret survives: a run of redacted text becomes one marker made of characters that
/// occur in no secret (`***`, else another), so no secret can straddle a marker.
pub fn redact<S: AsRef<str>>(text: &str, secrets: &[S]) -> String {
    let mut masked = vec![false; text.len()];
    let mut mask = |range: std::ops::Range<usize>| masked[range].iter_mut().for_each(|m| *m = true);
    for secret in secrets.iter().map(AsRef::as_ref).filter(|s| !s.is_empty()) {
        let mut from = 0;
        while let Some(at) = text[from..].find(secret) {
            let at = from + at;
            mask(at..at + secret.len());
            // The next search starts one character later, so overlapping matches count.
            from = at + text[at..].chars().next().map_or(1, char::len_utf8);
        }
    }
    for range in url_credentials(text) {
        mask(range);
    }
    for range in bearer_tokens(text) {
        mask(range);
    }
    if !masked.contains(&true) {
        return text.to_owned();
    }
    let marker = marker_for(secrets);
    let mut out = String::with_capacity(text.len());
    let mut in_run = false;
    for (i, c) in text.char_indices() {
        if masked[i] {
            if !in_run {
                out.push_str(&marker);
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out
}

/// The parts of a configured URL that authenticate, as they appear in it and
/// percent-decoded: the userinfo's user and password, every query value. An HTTP client
/// sends userinfo as `Basic` credentials, so their base64 form counts too.
pub fn url_secrets(url: &str) -> Vec<String> {
    let mut secrets = Vec::new();
    let mut push = |raw: &str| {
        if raw.is_empty() {
            return;
        }
        secrets.push(raw.to_owned());
        let decoded = percent_decode(raw);
        if decoded != raw {
            secrets.push(decoded);
        }
    };
    for part in url_parts(url) {
        match part {
            UrlPart::Userinfo(range) => {
                let userinfo = &url[range];
                let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
                push(user);
                push(password);
                let basic = format!("{}:{}", percent_decode(user), percent_decode(password));
                push(&base64(basic.as_bytes()));
            }
            UrlPart::QueryValue(range) => push(&url[range]),
        }
    }
    secrets
}

enum UrlPart {
    Userinfo(std::ops::Range<usize>),
    QueryValue(std::ops::Range<usize>),
}

/// Characters that end a URL written inside a message.
fn ends_url(c: u8) -> bool {
    c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'<' | b'>' | b'`')
}

/// The userinfo and query values of every `scheme://` URL in `text`, as byte ranges.
fn url_parts(text: &str) -> Vec<UrlPart> {
    let bytes = text.as_bytes();
    let mut parts = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("://") {
        let start = from + at + 3;
        let authority_end = (start..bytes.len())
            .find(|&i| ends_url(bytes[i]) || matches!(bytes[i], b'/' | b'?' | b'#'))
            .unwrap_or(bytes.len());
        // The last `@`: a password may hold an unescaped one.
        if let Some(at) = text[start..authority_end].rfind('@') {
            parts.push(UrlPart::Userinfo(start..start + at));
        }
        let path_end = (authority_end..bytes.len())
            .find(|&i| ends_url(bytes[i]) || matches!(bytes[i], b'?' | b'#'))
            .unwrap_or(bytes.len());
        let mut end = path_end;
        if bytes.get(path_end) == Some(&b'?') {
            end = (path_end + 1..bytes.len())
                .find(|&i| ends_url(bytes[i]) || bytes[i] == b'#')
                .unwrap_or(bytes.len());
            let mut item = path_end + 1;
            for i in path_end + 1..=end {
                if i == end || matches!(bytes[i], b'&' | b';') {
                    // `name=value` hides the value; a bare item may itself be a token.
                    let value = match text[item..i].find('=') {
                        Some(eq) => item + eq + 1..i,
                        None => item..i,
                    };
                    if !value.is_empty() {
                        parts.push(UrlPart::QueryValue(value));
                    }
                    item = i + 1;
                }
            }
        }
        from = end.max(start);
    }
    parts
}

fn url_credentials(text: &str) -> impl Iterator<Item = std::ops::Range<usize>> {
    url_parts(text).into_iter().map(|part| match part {
        UrlPart::Userinfo(range) | UrlPart::QueryValue(range) => range,
    })
}

/// The tokens after `Bearer ` (any case), when long enough to be credentials rather than
/// a word of prose.
fn bearer_tokens(text: &str) -> Vec<std::ops::Range<usize>> {
    const MIN_TOKEN: usize = 8;
    let lower = text.to_ascii_lowercase();
    let bytes = text.as_bytes();
    let token_char = |c: u8| c.is_ascii_alphanumeric() || b"-._~+/=".contains(&c);
    let mut tokens = Vec::new();
    let mut from = 0;
    while let Some(at) = lower[from..].find("bearer") {
        let mut start = from + at + "bearer".len();
        from = start;
        let spaces = bytes[start..].iter().take_while(|&&c| c == b' ').count();
        if spaces == 0 {
            continue;
        }
        start += spaces;
        let token = &text[start
            ..start
                + bytes[start..]
                    .iter()
                    .take_while(|&&c| token_char(c))
                    .count()];
        // A full stop after the token ends the sentence, not the token.
        let len = token.trim_end_matches('.').len();
        if len >= MIN_TOKEN {
            tokens.push(start..start + len);
        }
    }
    tokens
}

/// `***`, or three of the first character no secret contains.
fn marker_for<S: AsRef<str>>(secrets: &[S]) -> String {
    let free = |c: char| !secrets.iter().any(|s| s.as_ref().contains(c));
    if MARKER.chars().all(free) {
        return MARKER.to_owned();
    }
    let c = ['#', '~', '%', '^', '•', '█']
        .into_iter()
        .chain(('\u{2500}'..='\u{27ff}').filter(|c| !c.is_whitespace()))
        .find(|&c| free(c))
        .unwrap_or('\u{fffd}');
    c.to_string().repeat(3)
}

/// `%XX` escapes decoded; invalid escapes or UTF-8 are kept as they are.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).and_then(|&c| hex(c)),
                bytes.get(i + 2).and_then(|&c| hex(c)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

/// Standard base64 with padding (what `Authorization: Basic` carries).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const KEY: &str = "sk-SENTINEL-123456";

    #[test]
    fn an_echoed_key_is_redacted() {
        let message = format!("Incorrect API key provided: Bearer {KEY}. Check it.");
        assert_eq!(
            redact(&message, &[KEY]),
            "Incorrect API key provided: Bearer ***. Check it."
        );
        let event = format!(r#"{{"error":{{"message":"bad key {KEY}{KEY}"}}}}"#);
        assert_eq!(
            redact(&event, &[KEY]),
            r#"{"error":{"message":"bad key ***"}}"#
        );
    }

    #[test]
    fn short_keys_are_redacted_too() {
        assert_eq!(redact("key abc1 refused", &["abc1"]), "key *** refused");
        assert_eq!(redact("x", &["x"]), "***");
        // Overlapping occurrences leave nothing of the key behind.
        assert_eq!(redact("aaa", &["aa"]), "***");
    }

    #[test]
    fn plain_text_is_unchanged() {
        let text = "the model service answered HTTP 500: boom (bearer of bad news)";
        assert_eq!(redact(text, &[KEY]), text);
        assert_eq!(redact(text, &[""]), text);
    }

    #[test]
    fn url_credentials_are_redacted() {
        assert_eq!(
            redact(
                "cannot reach https://user:secret@api.example.com/v1/chat/completions: refused",
                &[] as &[&str]
            ),
            "cannot reach https://***@api.example.com/v1/chat/completions: refused"
        );
        assert_eq!(
            redact(
                "error sending request for url (http://h:1/v1?key=abc&x=1#top)",
                &[] as &[&str]
            ),
            "error sending request for url (http://h:1/v1?key=***&x=***#top)"
        );
        assert_eq!(
            redact("see http://example.com/v1 and ftp://a@b", &[] as &[&str]),
            "see http://example.com/v1 and ftp://***@b"
        );
    }

    #[test]
    fn bearer_tokens_are_redacted_without_knowing_them() {
        assert_eq!(
            redact("Authorization: BEARER abcdefgh12345678", &[] as &[&str]),
            "Authorization: BEARER ***"
        );
        assert_eq!(redact("bearer short", &[] as &[&str]), "bearer short");
    }

    #[test]
    fn a_key_made_of_the_marker_gets_another_marker() {
        let out = redact("pass *** here", &["*"]);
        assert!(!out.contains('*'), "{out}");
        assert_eq!(out, "pass ### here");
    }

    #[test]
    fn a_configured_url_yields_its_secrets() {
        let secrets = url_secrets("https://me:p%40ss@host/v1?key=k1&api-version=2024");
        for s in ["me", "p%40ss", "p@ss", "k1", "2024", &base64(b"me:p@ss")] {
            assert!(secrets.iter().any(|x| x == s), "{s} in {secrets:?}");
        }
        assert!(url_secrets("https://api.openai.com/v1").is_empty());
        let redactor = Redactor::new(Some(KEY), "https://me:p%40ss@host/v1");
        assert_eq!(
            redactor.redact("user me with p@ss and bXk6cEBzcw== then"),
            "user *** with *** and bXk6cEBzcw== then"
        );
        assert_eq!(
            redactor.redact(&format!("Basic {} {KEY}", base64(b"me:p@ss"))),
            "Basic *** ***"
        );
        assert!(!format!("{redactor:?}").contains(KEY));
    }

    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"user:secret"), "dXNlcjpzZWNyZXQ=");
    }

    proptest! {
        /// Whatever surrounds it, and however often, the key never survives.
        #[test]
        fn the_key_never_survives(
            key in "[!-~]{1,24}",
            before in ".{0,40}",
            between in ".{0,10}",
            after in ".{0,40}",
        ) {
            let text = format!("{before}{key}{between}{key}{after}");
            let out = redact(&text, &[key.as_str()]);
            prop_assert!(!out.contains(&key), "{:?} -> {:?}", text, out);
        }

        /// Nor do the key and the credentials of a configured URL, wherever they appear.
        #[test]
        fn configured_credentials_never_survive(
            key in "[A-Za-z0-9_-]{1,20}",
            password in "[A-Za-z0-9._~-]{1,12}",
            query in "[A-Za-z0-9._~-]{1,12}",
            before in ".{0,30}",
            after in ".{0,30}",
        ) {
            let url = format!("https://user:{password}@host/v1?key={query}");
            let redactor = Redactor::new(Some(&key), &url);
            let text = format!("{before} {url} {key} {password}{after}{query}");
            let out = redactor.redact(&text);
            for secret in [&key, &password, &query] {
                prop_assert!(!out.contains(secret.as_str()), "{:?} in {:?}", secret, out);
            }
        }

        /// Text without secrets, URLs or bearer tokens passes unchanged.
        #[test]
        fn clean_text_is_untouched(text in "[a-z ,.:!]{0,80}") {
            prop_assume!(!text.contains("bearer"));
            prop_assert_eq!(redact(&text, &["sk-SENTINEL-123456"]), text);
        }
    }
}
