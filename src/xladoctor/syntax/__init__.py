"""Reading XLA's text formats: shapes/layouts (:mod:`.shape_parser`) and HLO modules (:mod:`.hlo_parser`)."""
