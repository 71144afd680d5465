package bwrap

// GuardArg is the argv[1] that makes zsandbox run as the placeholder guard
// (see MakePlaceholders).
const GuardArg = "__guard"
