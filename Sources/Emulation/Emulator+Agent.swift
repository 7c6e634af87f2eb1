extension Emulator {
    /// What a control client (an attached agent) is doing now, for the scripts (the OSD shows it); nil: a
    /// client that had said so left.
    public func tell(agentActivity text: String?) { emit(.agentActivity(text)) }
}
