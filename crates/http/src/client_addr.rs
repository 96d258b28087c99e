//! The client's address: a request value of the graph (`clientAddr`), read from the
//! connection, for the steps and handlers that need it.

use std::fmt;
use std::net::SocketAddr;

use http::request::Parts;

use green_tea_core::{Descriptor, Needs, Provided};

use crate::future::StepFuture;
use crate::step::Step;

/// The address of the client at the other end of the request's connection: a request value
/// under the key [`ClientAddr::KEY`] (`"clientAddr"`), which any step or handler may need.
///
/// It is `None` where there is no peer address: a Unix socket, [`TestClient`] (unless the
/// request sets one), an app mounted in another server (which may put a `ClientAddr` in the
/// request's extensions itself). Behind a proxy it is the proxy's address: read the
/// forwarding header your proxy sets instead.
///
/// A route that needs it pays for one shared value per request; one that does not pays
/// nothing.
///
/// ```
/// use green_tea::App;
/// use green_tea::extract::{ClientAddr, RequestContext};
/// use green_tea::routing::Route;
/// use green_tea::test::TestClient;
///
/// # #[tokio::main] async fn main() {
/// let app = App::builder()
///     .route(
///         Route::get("/whoami", |request: RequestContext| async move {
///             let client = request.need::<ClientAddr>(0)?;
///             Ok::<_, green_tea::HttpError>(client.to_string())
///         })
///         .needs::<ClientAddr>(ClientAddr::KEY),
///     )
///     .build()
///     .unwrap();
/// let client = TestClient::new(app);
/// assert_eq!(client.get("/whoami").send().await.text(), "unknown");
/// # }
/// ```
///
/// [`TestClient`]: crate::TestClient
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClientAddr(pub Option<SocketAddr>);

impl ClientAddr {
    /// The key it is provided under.
    pub const KEY: &'static str = "clientAddr";

    /// The address, if the connection has one.
    pub fn get(self) -> Option<SocketAddr> {
        self.0
    }

    /// Where a request that did not come through green-tea's server carries it: in its
    /// extensions, put there by whoever accepted the connection.
    #[inline]
    pub(crate) fn of_extensions(extensions: &http::Extensions) -> Option<SocketAddr> {
        extensions.get::<ClientAddr>().and_then(|addr| addr.0)
    }
}

/// The address, or `unknown`.
impl fmt::Display for ClientAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(addr) => addr.fmt(f),
            None => f.write_str("unknown"),
        }
    }
}

/// The step that provides `clientAddr`, added to an app whose steps or routes need it. The
/// dispatch gives its value from the request's context, where the server put the connection's
/// address (see `CompiledStep::from_connection`); run by hand, it reads the request's
/// extensions.
pub(crate) struct FromConnection;

impl Step for FromConnection {
    fn descriptor(&self) -> Descriptor {
        Descriptor::new("the connection").provides::<ClientAddr>(ClientAddr::KEY)
    }

    fn run<'a>(&'a self, parts: &'a mut Parts, _needs: Needs<'a>) -> StepFuture<'a> {
        StepFuture::ready(Ok(Provided::one(ClientAddr(ClientAddr::of_extensions(
            &parts.extensions,
        )))))
    }
}
