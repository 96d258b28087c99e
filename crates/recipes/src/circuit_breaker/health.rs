//! The breaker's state in the app's health (`AppBuilder::health_check`): closed is up,
//! half-open and a shared store working on local state alone are degraded, open is down.

use green_tea_core::{Check, HealthCheck};

use super::breaker::CircuitBreaker;
use super::state::BreakerState;

impl HealthCheck for CircuitBreaker {
    fn check(&self) -> Check {
        let state = self.state();
        let check = match state {
            BreakerState::Closed | BreakerState::ForcedClosed => {
                Check::up().detail(state.to_string())
            }
            BreakerState::HalfOpen => Check::degraded("half-open: trying the upstream again"),
            BreakerState::Open | BreakerState::ForcedOpen => Check::down(state.to_string()),
        };
        #[cfg(feature = "redis")]
        if self.degraded() && check.status == green_tea_core::CheckStatus::Up {
            return Check::degraded(format!(
                "{state}; its shared store is unreachable, so it works on local state alone"
            ));
        }
        check
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use green_tea_core::{CheckStatus, HealthCheck};

    use super::super::{CircuitBreaker, Config, ManualClock};

    #[tokio::test]
    async fn closed_is_up_open_is_down_half_open_is_degraded() {
        let clock = ManualClock::new();
        let breaker =
            CircuitBreaker::new(Config::new(1, Duration::from_secs(1)).clock(clock.clone()));
        assert_eq!(breaker.check().status, CheckStatus::Up);
        assert!(
            breaker
                .call(|| async { Err::<(), _>("down") })
                .await
                .is_err()
        );
        let open = breaker.check();
        assert_eq!(
            (open.status, open.detail.as_deref()),
            (CheckStatus::Down, Some("open"))
        );
        clock.set(Duration::from_secs(2));
        // A trial in flight: half-open while it runs.
        let (started, hold) = (
            tokio::sync::oneshot::channel::<()>(),
            tokio::sync::oneshot::channel::<()>(),
        );
        let (started_tx, started_rx) = started;
        let (hold_tx, hold_rx) = hold;
        let trial = breaker.call(|| async move {
            let _ = started_tx.send(());
            let _ = hold_rx.await;
            Ok::<_, &str>(())
        });
        let checked = async {
            started_rx.await.unwrap();
            let check = breaker.check();
            hold_tx.send(()).unwrap();
            check
        };
        let (result, half_open) = tokio::join!(trial, checked);
        result.unwrap();
        assert_eq!(half_open.status, CheckStatus::Degraded);
        assert_eq!(breaker.check().status, CheckStatus::Up);
        breaker.force_open();
        assert_eq!(breaker.check().detail.as_deref(), Some("forced-open"));
    }
}
