//! The notifications: the module the `shop-notifications` crate ships (on green-tea-core
//! alone), with a route the app adds to it: `GET /notifications`, what was sent. A route added
//! to a module is the module's, so its need of `outbox` resolves inside it.

use green_tea::prelude::*;
use shop_notifications::Outbox;

pub(crate) struct NotificationsApi;

#[route("/")]
impl NotificationsApi {
    /// Every request the notifications' client posted.
    #[get("/")]
    async fn sent(#[needs("outbox")] outbox: &Outbox) -> Json<Vec<String>> {
        Json(outbox.sent())
    }
}

/// The crate's module, served under `/notifications` with the route above.
pub(crate) fn module() -> Module {
    shop_notifications::module()
        .discover_in(&[module_path!()])
        .prefix("/notifications")
}
