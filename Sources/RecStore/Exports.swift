// The layers below this one, for every file here (and for those that import this one).
@_exported import RecSystem
@_exported import RecValues
