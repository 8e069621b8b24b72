fn main() { let _ = dora_node_api::DoraNode::init_from_env(); }
