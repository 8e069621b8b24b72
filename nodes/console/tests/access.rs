//! Who may reach the console: the bind rule, the token, loopback hosts, a taken port.

mod common;

use std::time::Duration;

use common::{Running, free_port, http_get, http_status};
use node_kit::testing::{keepalive, stop};

/// Inputs that keep the node alive (and its outputs flowing) for `secs`.
fn alive(secs: f64) -> Vec<node_kit::testing::TestEvent> {
    let mut events = keepalive(0.1, secs);
    events.push(stop(secs));
    events
}

#[test]
fn a_non_loopback_bind_without_a_token_refuses_to_start() {
    let port = free_port();
    let mut run = Running::start(&[("CONSOLE_ADDR", "0.0.0.0")], alive(30.0), port);
    let status = run.wait_exit(Duration::from_secs(60));
    assert!(!status.success());
    let logs = run.logs();
    assert!(logs.contains("CONSOLE_TOKEN"), "{logs}");
    assert_eq!(http_status(port, "/health", ""), None, "nothing listens");
}

#[test]
fn with_a_token_every_request_must_carry_it() {
    let port = free_port();
    let token = "console-test-token-1234";
    let mut run = Running::start(
        &[("CONSOLE_ADDR", "0.0.0.0"), ("CONSOLE_TOKEN", token)],
        alive(120.0),
        port,
    );
    run.wait_ready("");
    let logs = run.logs();
    assert!(!logs.contains(token), "the token is never printed: {logs}");
    assert_eq!(http_status(port, "/", ""), Some(401));
    assert_eq!(http_status(port, "/?token=wrong-token-0000", ""), Some(401));
    assert_eq!(
        http_status(
            port,
            "/health",
            "Authorization: Bearer wrong-token-0000\r\n"
        ),
        Some(401)
    );
    assert_eq!(http_status(port, "/ws", ""), Some(401));
    assert_eq!(http_status(port, "/app.js", ""), Some(401));
    let (status, page) = http_get(port, &format!("/?token={token}"), "").unwrap();
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Conversation console"));
    // The page gets the token as an HttpOnly cookie, never in its body or script.
    let body = page.split("\r\n\r\n").nth(1).unwrap_or_default();
    assert!(!body.contains(token));
    assert!(page.contains("HttpOnly"), "{page}");
    assert_eq!(
        http_status(
            port,
            "/app.js",
            &format!("Cookie: console_token={token}\r\n")
        ),
        Some(200)
    );
    assert_eq!(
        http_status(
            port,
            "/health",
            &format!("Authorization: Bearer {token}\r\n")
        ),
        Some(200)
    );
    let (_, script) = http_get(
        port,
        "/app.js",
        &format!("Cookie: console_token={token}\r\n"),
    )
    .unwrap();
    assert!(!script.contains(token));
}

#[test]
fn on_loopback_the_page_is_served_to_loopback_hosts_only() {
    let port = free_port();
    let mut run = Running::start(&[], alive(120.0), port);
    run.wait_ready("");
    let (status, page) = http_get(port, "/", "").unwrap();
    assert_eq!(status, 200);
    assert!(page.contains("Content-Security-Policy") || page.contains("content-security-policy"));
    assert_eq!(http_status(port, "/", "Host: localhost\r\n"), Some(200));
    // A site whose name points at 127.0.0.1 (DNS rebinding) gets nothing.
    assert_eq!(http_status(port, "/", "Host: evil.example\r\n"), Some(403));
    // A WebSocket upgrade from another site's page is refused.
    let upgrade = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
    assert_eq!(
        http_status(
            port,
            "/ws",
            &format!("{upgrade}Origin: http://evil.example\r\n")
        ),
        Some(403)
    );
    assert!(
        run.logs().contains(&format!("http://127.0.0.1:{port}/")),
        "{}",
        run.logs()
    );
}

/// A taken port costs the page, not the conversation: the node says why and stays.
#[test]
fn a_taken_port_is_a_clear_error_and_the_node_stays() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let mut run = Running::start(&[], alive(3.0), port);
    let status = run.wait_exit(Duration::from_secs(60));
    let logs = run.logs();
    assert!(status.success(), "{logs}");
    assert!(
        logs.contains("taken") && logs.contains("CONSOLE_PORT"),
        "{logs}"
    );
}
