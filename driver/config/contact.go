package config

import "github.com/rosorin/rosorin/judge/contact"

// ContactConfig returns the contact reflex's constants (judge/contact; chapter 19's LAG, WIN, V_MIN,
// SETTLE, RATIO, HOLD and our W_MIN for turns). The values are checked by contact.Config.Validate.
func (c Config) ContactConfig() contact.Config {
	k := contact.DefaultConfig()
	k.Lag, k.Win, k.Settle, k.Hold = seconds(c.ContactLag), seconds(c.ContactWin), seconds(c.ContactSettle), seconds(c.ContactHold)
	k.VMin, k.WMin, k.Ratio = c.ContactVMin, c.ContactWMin, c.ContactRatio
	return k
}

// contactCheck is Validate's part for the contact constants.
func (c Config) contactCheck() []keyErr {
	if err := c.ContactConfig().Validate(); err != nil {
		return []keyErr{{"contact", err.Error()}}
	}
	return nil
}
