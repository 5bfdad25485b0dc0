"""Design rule checks (roadmap): each rule returns findings with an id, a severity and a
source.  Empty until the rules engine lands; the package exists so the layer test already
guards it against Qt imports."""
