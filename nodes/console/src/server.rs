//! The HTTP and WebSocket side, on a tokio runtime of its own thread: the embedded page,
//! the token check on every request, and one WebSocket per page whose frames go to the
//! node's loop (and whose queue the loop fills without ever waiting).

use std::sync::{
    Arc,
    atomic::{AtomicU64, Ordering},
};

use axum::{
    Router,
    body::Body,
    extract::{
        Request, State,
        ws::{Message, WebSocket, WebSocketUpgrade},
    },
    http::{HeaderValue, StatusCode, header},
    middleware::{self, Next},
    response::{IntoResponse, Response},
    routing::get,
};
use console_core::auth;
use futures_util::{SinkExt, StreamExt};

use crate::PageEvent;

const INDEX: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const STYLE: &str = include_str!("../assets/style.css");
/// Content security: everything from this origin, nothing else.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; media-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/// The largest frame a page may send (a second of 48 kHz audio fits four times).
const MAX_FRAME: usize = 1 << 20;

pub struct Settings {
    pub token: Option<String>,
    /// Bound to loopback: requests must name a loopback host.
    pub loopback_only: bool,
}

struct AppState {
    settings: Settings,
    to_loop: crossbeam_channel::Sender<PageEvent>,
    next_id: AtomicU64,
    queue: usize,
}

/// Serves on `listener` from a new thread.
pub fn spawn(
    listener: std::net::TcpListener,
    settings: Settings,
    to_loop: crossbeam_channel::Sender<PageEvent>,
    queue: usize,
) -> eyre::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let state = Arc::new(AppState {
        settings,
        to_loop,
        next_id: AtomicU64::new(1),
        queue,
    });
    let app = Router::new()
        .route("/", get(index))
        .route("/app.js", get(app_js))
        .route("/style.css", get(style))
        .route("/health", get(|| async { "ok" }))
        .route("/ws", get(ws))
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state);
    std::thread::Builder::new()
        .name("console-http".into())
        .spawn(move || {
            runtime.block_on(async move {
                let listener = match tokio::net::TcpListener::from_std(listener) {
                    Ok(l) => l,
                    Err(e) => {
                        tracing::error!(error = %e, "the console cannot serve");
                        return;
                    }
                };
                if let Err(e) = axum::serve(listener, app).await {
                    tracing::error!(error = %e, "the console server stopped");
                }
            });
        })?;
    Ok(())
}

/// Every request: a loopback `Host` when bound to loopback without a token, and the
/// token when one is configured (401 otherwise). A page opened with a valid `?token=`
/// gets it as an HttpOnly cookie, so the page's own requests carry it without the
/// script ever seeing it.
async fn guard(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let token = state.settings.token.as_deref();
    if token.is_none()
        && state.settings.loopback_only
        && !text(header::HOST).is_some_and(auth::loopback_host)
    {
        return (
            StatusCode::FORBIDDEN,
            "the console answers loopback hosts only\n",
        )
            .into_response();
    }
    // A WebSocket from another site's page is refused (the browser names its origin).
    if request.uri().path() == "/ws"
        && !auth::origin_allowed(text(header::ORIGIN), text(header::HOST))
    {
        return (StatusCode::FORBIDDEN, "cross-origin WebSocket refused\n").into_response();
    }
    let query = request.uri().query();
    let offered = auth::Offered {
        query,
        authorization: text(header::AUTHORIZATION),
        cookie: text(header::COOKIE),
    };
    if !auth::authorized(token, offered) {
        return (
            StatusCode::UNAUTHORIZED,
            "the console needs its token (?token=..., or Authorization: Bearer ...)\n",
        )
            .into_response();
    }
    let set_cookie = token.is_some()
        && query
            .and_then(|q| auth::query_param(q, "token"))
            .is_some_and(|t| token.is_some_and(|expected| auth::token_matches(expected, &t)));
    let mut response = next.run(request).await;
    if set_cookie
        && let Some(expected) = token
        && let Ok(value) = HeaderValue::from_str(&format!(
            "{}={expected}; HttpOnly; SameSite=Strict; Path=/",
            auth::COOKIE
        ))
    {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut response = Response::new(Body::from(body));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

async fn index() -> Response {
    asset(INDEX, "text/html; charset=utf-8")
}

async fn app_js() -> Response {
    asset(APP_JS, "text/javascript; charset=utf-8")
}

async fn style() -> Response {
    asset(STYLE, "text/css; charset=utf-8")
}

async fn ws(State(state): State<Arc<AppState>>, upgrade: WebSocketUpgrade) -> Response {
    upgrade
        .max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        .on_upgrade(move |socket| page(socket, state))
}

/// One page: its frames to the loop, the loop's frames (from its bounded queue) to it.
async fn page(socket: WebSocket, state: Arc<AppState>) {
    let id = state.next_id.fetch_add(1, Ordering::Relaxed);
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Message>(state.queue);
    if state.to_loop.send(PageEvent::Connected { id, tx }).is_err() {
        return;
    }
    let (mut sink, mut stream) = socket.split();
    let writer = tokio::spawn(async move {
        while let Some(message) = rx.recv().await {
            if sink.send(message).await.is_err() {
                break;
            }
        }
        let _ = sink.close().await;
    });
    while let Some(Ok(message)) = stream.next().await {
        let event = match message {
            Message::Text(text) => PageEvent::Text {
                id,
                text: text.as_str().to_owned(),
            },
            Message::Binary(bytes) => PageEvent::Binary {
                id,
                bytes: bytes.to_vec(),
            },
            Message::Close(_) => break,
            _ => continue,
        };
        if state.to_loop.send(event).is_err() {
            break;
        }
    }
    let _ = state.to_loop.send(PageEvent::Closed { id });
    writer.abort();
}
