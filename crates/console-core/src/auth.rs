//! Who may use the console: the bind rule (loopback, or a token), the token carried by a
//! request (query, `Authorization: Bearer`, or the cookie the page gets), and the
//! same-origin rule for WebSocket upgrades.

use std::net::IpAddr;

/// The cookie that carries the token once the page was opened with `?token=`.
pub const COOKIE: &str = "console_token";

/// The shortest token accepted for a non-loopback bind.
pub const MIN_TOKEN_CHARS: usize = 8;

/// Binding a non-loopback address requires a token of at least [`MIN_TOKEN_CHARS`].
pub fn bind_allowed(ip: IpAddr, token: Option<&str>) -> Result<(), String> {
    let token = token.map(str::trim).filter(|t| !t.is_empty());
    match token {
        Some(t) if t.chars().count() < MIN_TOKEN_CHARS => Err(format!(
            "CONSOLE_TOKEN is too short ({} characters; at least {MIN_TOKEN_CHARS})",
            t.chars().count()
        )),
        Some(_) => Ok(()),
        None if ip.is_loopback() => Ok(()),
        None => Err(format!(
            "CONSOLE_ADDR={ip} is not a loopback address: set CONSOLE_TOKEN (every request must then carry it) or bind 127.0.0.1"
        )),
    }
}

/// Equality that takes the same time wherever the first difference is.
pub fn token_matches(expected: &str, offered: &str) -> bool {
    let (a, b) = (expected.as_bytes(), offered.as_bytes());
    let mut diff = a.len() ^ b.len();
    for (i, &x) in a.iter().enumerate() {
        let y = b.get(i).copied().unwrap_or(0);
        diff |= usize::from(x ^ y);
    }
    diff == 0
}

/// The value of `name` in a query string (`a=1&token=x`), percent-decoded.
pub fn query_param(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (percent_decode(key).as_deref() == Some(name))
            .then(|| percent_decode(value))
            .flatten()
    })
}

/// The value of cookie `name` in a `Cookie` header.
pub fn cookie_value(header: &str, name: &str) -> Option<String> {
    header.split(';').find_map(|part| {
        let (key, value) = part.trim().split_once('=')?;
        (key.trim() == name).then(|| value.trim().to_owned())
    })
}

/// The token of `Authorization: Bearer <token>`.
pub fn bearer(header: &str) -> Option<&str> {
    let (scheme, rest) = header.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| rest.trim())
        .filter(|t| !t.is_empty())
}

/// What a request carries, as the HTTP layer found it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Offered<'a> {
    pub query: Option<&'a str>,
    pub authorization: Option<&'a str>,
    pub cookie: Option<&'a str>,
}

/// Whether a request may pass: always without a configured token, else when one of the
/// places it can be carried holds exactly the token.
pub fn authorized(expected: Option<&str>, offered: Offered<'_>) -> bool {
    let Some(expected) = expected else {
        return true;
    };
    let from_query = offered.query.and_then(|q| query_param(q, "token"));
    let from_header = offered.authorization.and_then(bearer).map(str::to_owned);
    let from_cookie = offered.cookie.and_then(|c| cookie_value(c, COOKIE));
    [from_query, from_header, from_cookie]
        .into_iter()
        .flatten()
        .any(|t| token_matches(expected, &t))
}

/// A WebSocket upgrade from a page of another site is refused: when the browser names an
/// `Origin`, its host (with port) must be the `Host` the request was sent to.
pub fn origin_allowed(origin: Option<&str>, host: Option<&str>) -> bool {
    let Some(origin) = origin else {
        return true; // not a browser page (a test client, a script)
    };
    let Some(host) = host else {
        return false;
    };
    let origin_host = origin
        .split_once("://")
        .map_or(origin, |(_, rest)| rest)
        .trim_end_matches('/');
    origin_host.eq_ignore_ascii_case(host.trim())
}

/// Whether a `Host` header names this machine (`localhost`, `127.0.0.1`, `[::1]`, with
/// or without a port): a page served on loopback without a token answers only those, so
/// a site that points its own name at 127.0.0.1 cannot read it.
pub fn loopback_host(host: &str) -> bool {
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split_once(']').map_or(rest, |(h, _)| h)
    } else {
        host.rsplit_once(':').map_or(host, |(h, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) {
                h
            } else {
                host
            }
        })
    };
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// `%XX` and `+` decoding; `None` when the result is not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_binds_freely_anything_else_needs_a_token() {
        assert!(bind_allowed("127.0.0.1".parse().unwrap(), None).is_ok());
        assert!(bind_allowed("::1".parse().unwrap(), None).is_ok());
        let err = bind_allowed("0.0.0.0".parse().unwrap(), None).unwrap_err();
        assert!(err.contains("CONSOLE_TOKEN"), "{err}");
        assert!(bind_allowed("0.0.0.0".parse().unwrap(), Some("  ")).is_err());
        assert!(bind_allowed("0.0.0.0".parse().unwrap(), Some("short")).is_err());
        assert!(bind_allowed("192.168.1.4".parse().unwrap(), Some("long-enough-token")).is_ok());
    }

    #[test]
    fn the_token_may_come_from_query_header_or_cookie() {
        let t = Some("s3cret-token");
        assert!(authorized(None, Offered::default()));
        assert!(!authorized(t, Offered::default()));
        let q = |query| Offered {
            query: Some(query),
            ..Offered::default()
        };
        assert!(authorized(t, q("a=1&token=s3cret-token")));
        assert!(authorized(t, q("token=s3cret%2Dtoken")));
        assert!(!authorized(t, q("token=s3cret-tokeN")));
        assert!(!authorized(t, q("token=s3cret-toke")));
        assert!(!authorized(t, q("xtoken=s3cret-token")));
        let h = Offered {
            authorization: Some("Bearer s3cret-token"),
            ..Offered::default()
        };
        assert!(authorized(t, h));
        let c = Offered {
            cookie: Some("a=b; console_token=s3cret-token"),
            ..Offered::default()
        };
        assert!(authorized(t, c));
    }

    #[test]
    fn same_origin_only() {
        assert!(origin_allowed(None, Some("127.0.0.1:8777")));
        assert!(origin_allowed(
            Some("http://127.0.0.1:8777"),
            Some("127.0.0.1:8777")
        ));
        assert!(!origin_allowed(
            Some("http://evil.example"),
            Some("127.0.0.1:8777")
        ));
        assert!(!origin_allowed(Some("http://127.0.0.1:8777"), None));
    }

    #[test]
    fn loopback_hosts() {
        for ok in [
            "localhost",
            "127.0.0.1:8777",
            "[::1]:80",
            "LOCALHOST:1",
            "127.1.2.3",
        ] {
            assert!(loopback_host(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8777",
            "192.168.0.2",
            "",
            "localhost.evil",
        ] {
            assert!(!loopback_host(bad), "{bad}");
        }
    }

    #[test]
    fn percent_decoding_survives_broken_escapes() {
        assert_eq!(percent_decode("a%20b+c").as_deref(), Some("a b c"));
        assert_eq!(percent_decode("%").as_deref(), Some("%"));
        assert_eq!(percent_decode("%zz").as_deref(), Some("%zz"));
        assert_eq!(percent_decode("%e4%b8%ad").as_deref(), Some("中"));
        assert_eq!(percent_decode("%ff"), None);
    }
}
