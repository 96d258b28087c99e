//! The breaker shared through Redis servers the tests start: one node, a Cluster, Sentinel, and the harness that makes them.
//!
//! One binary for the area, so that it links once; each module is one topic.

#[path = "../support/redis_topology.rs"]
mod redis_topology;

mod breaker;
mod topologies;
mod topology_harness;
