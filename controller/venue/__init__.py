"""A venue of many tables: each table publishes its public state and events to an MQTT broker, and
`railtable venue` shows every table and the standings (docs/venue.md is the contract)."""
