package enginetest

import (
	"fmt"
	"time"
)

// Value domains, holding every value the 99 queries' qualification
// parameters compare a column with.
var (
	tpcdsStates   = []string{"TN", "GA", "TX", "OH", "OR", "NM", "KY", "VA", "MS", "IN", "ND", "OK", "CO", "MN", "CA", "WI", "CT", "NJ", "LA", "IA", "AR", "IL", "WA"}
	tpcdsCounties = []string{"Williamson County", "Rush County", "Toole County", "Jefferson County", "Dona Ana County", "La Porte County", "Orange County", "Bronx County", "Franklin Parish", "Ziebach County", "Walker County", "Fairfield County"}
	tpcdsCities   = []string{"Fairview", "Midway", "Edgewood", "Oak Grove", "Five Points", "Pleasant Hill", "Riverside", "Centerville", "Greenwood", "Union"}
	tpcdsZips     = []string{"85669", "86197", "88274", "83405", "86475", "85392", "85460", "80348", "81792", "24128", "76232", "65084", "87816", "83926", "77556", "20548", "26231", "43848", "15126", "91137", "35576", "35458", "31387", "35258"}
	tpcdsOffsets  = []string{"-5.00", "-5.00", "-6.00", "-7.00", "-8.00"}
	tpcdsCategory = []string{"Women", "Men", "Music", "Books", "Children", "Electronics", "Sports", "Home", "Jewelry", "Shoes"}
	tpcdsClasses  = map[string][]string{
		"Women": {"dresses", "maternity", "fragrances", "accessories"}, "Men": {"shirts", "pants", "accessories"},
		"Music": {"classical", "pop", "rock"}, "Books": {"reference", "self-help", "personal"},
		"Children": {"personal", "portable", "school-uniforms"}, "Electronics": {"portable", "stereo", "computers", "personal"},
		"Sports": {"football", "golf", "tennis"}, "Home": {"bedding", "furniture", "kids"},
		"Jewelry": {"birdal", "rings", "bracelets"}, "Shoes": {"athletic", "kids", "mens"},
	}
	tpcdsBrands = []string{"scholaramalgamalg #14", "scholaramalgamalg #7", "exportiunivamalg #9", "scholaramalgamalg #9",
		"amalgimporto #1", "edu packscholar #1", "exportiimporto #1", "importoamalg #1", "corpbrand #4", "univunivamalg #2"}
	tpcdsColors = []string{"powder", "khaki", "brown", "honeydew", "floral", "deep", "light", "cornflower", "midnight", "snow",
		"cyan", "papaya", "orange", "frosted", "forest", "ghost", "slate", "blanched", "burnished", "purple", "burlywood",
		"indian", "spring", "medium", "peach"}
	tpcdsUnits = []string{"Ounce", "Oz", "Bunch", "Ton", "N/A", "Dozen", "Box", "Pound", "Pallet", "Gross", "Cup", "Dram",
		"Each", "Tbl", "Lb", "Bundle"}
	tpcdsSizes = []string{"medium", "extra large", "N/A", "small", "petite", "large", "economy"}
	// tpcdsManufacts are manufacturer ids the queries filter on, then
	// others; item i gets one by i.
	tpcdsManufacts = []int64{128, 977, 350, 738, 745, 760, 677, 940, 694, 808, 129, 270, 821, 423, 750, 770, 12, 45, 200, 512}
	tpcdsPrices    = []int{120, 7000, 6650, 1250, 5500, 8000, 2500, 6800, 9000, 140, 6700, 4300, 7200, 99, 3100}
	tpcdsFirst     = []string{"James", "Mary", "John", "Linda", "Robert", "Susan", "David", "Karen", "Maria", "Kevin"}
	tpcdsLast      = []string{"Smith", "Johnson", "Brown", "Jones", "Miller", "Davis", "Garcia", "Wilson"}
	tpcdsBuy       = []string{">10000", "5001-10000", "1001-5000", "501-1000", "0-500", "Unknown"}
	tpcdsStores    = []string{"ese", "ought", "able", "anti", "bar", "eing", "cally", "ation"}
	tpcdsDayNames  = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
)

// Dimension sizes.
const (
	nItems     = 360
	nCustomers = 400
	nAddresses = 300
	nStores    = 12
	nWarehouse = 5
	nPromos    = 30
	nWebPages  = 60
	nWebSites  = 6
	nCallCtrs  = 6
	nCatPages  = 60
	nShipModes = 20
	nReasons   = 35
	nIncome    = 20
)

func (g *tpcdsGen) dimensions() {
	// date_dim: every day of 1998–2003.
	week0 := 2415021 // Julian day number of 1900-01-01, a Monday
	for d := 0; d < tpcdsDays; d++ {
		t := tpcdsDay0.AddDate(0, 0, d)
		jdn := tpcdsJDN0 + d
		y, m, dom := t.Date()
		qoy := (int(m)-1)/3 + 1
		first := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		last := first.AddDate(0, 1, -1)
		dow := int(t.Weekday())
		weekend := "N"
		if dow == 0 || dow == 6 {
			weekend = "Y"
		}
		g.add("date_dim", map[string]any{
			"d_date_sk": int64(jdn), "d_date_id": fmt.Sprintf("AAAAAAAA%08d", jdn), "d_date": ymd(t),
			"d_month_seq": int64((y-1900)*12 + int(m) - 1), "d_week_seq": int64((jdn-week0)/7 + 1),
			"d_quarter_seq": int64((y-1900)*4 + qoy), "d_year": int64(y), "d_dow": int64(dow), "d_moy": int64(m),
			"d_dom": int64(dom), "d_qoy": int64(qoy), "d_fy_year": int64(y), "d_fy_quarter_seq": int64((y-1900)*4 + qoy),
			"d_fy_week_seq": int64((jdn-week0)/7 + 1), "d_day_name": tpcdsDayNames[dow],
			"d_quarter_name": fmt.Sprintf("%dQ%d", y, qoy), "d_holiday": "N", "d_weekend": weekend,
			"d_following_holiday": "N", "d_first_dom": int64(jdn - dom + 1), "d_last_dom": int64(jdn + last.Day() - dom),
			"d_same_day_ly": int64(jdn - 365), "d_same_day_lq": int64(jdn - 91), "d_current_day": "N",
			"d_current_week": "N", "d_current_month": "N", "d_current_quarter": "N", "d_current_year": "N",
		})
	}
	// time_dim: every minute of the day, keyed by its second of the day.
	for h := 0; h < 24; h++ {
		for mi := 0; mi < 60; mi++ {
			s := h*3600 + mi*60
			ampm, shift, sub := "AM", "third", "night"
			if h >= 12 {
				ampm = "PM"
			}
			switch {
			case h >= 6 && h < 14:
				shift, sub = "first", "morning"
			case h >= 14 && h < 22:
				shift, sub = "second", "afternoon"
			}
			var meal any
			switch {
			case h >= 6 && h < 10:
				meal = "breakfast"
			case h >= 11 && h < 14:
				meal = "lunch"
			case h >= 17 && h < 21:
				meal = "dinner"
			}
			g.add("time_dim", map[string]any{"t_time_sk": int64(s), "t_time_id": fmt.Sprintf("T%06d", s), "t_time": int64(s),
				"t_hour": int64(h), "t_minute": int64(mi), "t_second": int64(0), "t_am_pm": ampm, "t_shift": shift,
				"t_sub_shift": sub, "t_meal_time": meal})
		}
	}
	for i := 1; i <= nIncome; i++ {
		g.add("income_band", map[string]any{"ib_income_band_sk": int64(i), "ib_lower_bound": int64((i-1)*10000 + 1), "ib_upper_bound": int64(i * 10000)})
	}
	// customer_demographics: gender × marital status × education, three
	// times with different counts.
	sk := 0
	for rep := 0; rep < 3; rep++ {
		for _, gen := range []string{"M", "F"} {
			for _, ms := range []string{"M", "S", "D", "W", "U"} {
				for _, ed := range []string{"Primary", "Secondary", "College", "2 yr Degree", "4 yr Degree", "Advanced Degree", "Unknown"} {
					sk++
					g.add("customer_demographics", map[string]any{"cd_demo_sk": int64(sk), "cd_gender": gen, "cd_marital_status": ms,
						"cd_education_status": ed, "cd_purchase_estimate": int64(500 * (1 + sk%20)),
						"cd_credit_rating": pick([]string{"Good", "High Risk", "Low Risk", "Unknown"}, sk, 1),
						"cd_dep_count":     int64(sk % 7), "cd_dep_employed_count": int64(sk % 5), "cd_dep_college_count": int64(sk % 4)})
				}
			}
		}
	}
	// household_demographics: buy potential × dependants × vehicles.
	sk = 0
	for _, bp := range tpcdsBuy {
		for dep := 0; dep <= 9; dep++ {
			for veh := -1; veh <= 4; veh++ {
				sk++
				g.add("household_demographics", map[string]any{"hd_demo_sk": int64(sk), "hd_income_band_sk": int64(1 + sk%nIncome),
					"hd_buy_potential": bp, "hd_dep_count": int64(dep), "hd_vehicle_count": int64(veh)})
			}
		}
	}
	for a := 1; a <= nAddresses; a++ {
		g.add("customer_address", map[string]any{"ca_address_sk": int64(a), "ca_address_id": fmt.Sprintf("ADDR%08d", a),
			"ca_street_number": fmt.Sprint(a * 7 % 1000), "ca_street_name": pick([]string{"Main", "Oak", "Park", "Elm"}, a, 1),
			"ca_street_type": pick([]string{"Street", "Ave", "Blvd"}, a, 2), "ca_suite_number": fmt.Sprintf("Suite %d", a%50),
			"ca_city": tpcdsCities[a%len(tpcdsCities)], "ca_county": tpcdsCounties[a%len(tpcdsCounties)],
			"ca_state": tpcdsStates[a%len(tpcdsStates)], "ca_zip": tpcdsZips[(a/3)%len(tpcdsZips)], "ca_country": "United States",
			"ca_gmt_offset": tpcdsOffsets[a%len(tpcdsOffsets)], "ca_location_type": pick([]string{"apartment", "condo", "single family"}, a, 3)})
	}
	for c := 1; c <= nCustomers; c++ {
		flag := "N"
		if c%3 != 0 {
			flag = "Y"
		}
		g.add("customer", map[string]any{"c_customer_sk": int64(c), "c_customer_id": fmt.Sprintf("CUST%08d", c),
			"c_current_cdemo_sk": int64(1 + mix(c, 1)%210), "c_current_hdemo_sk": int64(1 + mix(c, 2)%360),
			"c_current_addr_sk": int64(1 + c%nAddresses), "c_first_shipto_date_sk": dateSK(int(mix(c, 3) % tpcdsSales)),
			"c_first_sales_date_sk": dateSK(int(mix(c, 4) % tpcdsSales)), "c_salutation": pick([]string{"Mr.", "Ms.", "Dr.", "Mrs."}, c, 5),
			"c_first_name": tpcdsFirst[c%len(tpcdsFirst)], "c_last_name": tpcdsLast[(c/len(tpcdsFirst))%len(tpcdsLast)],
			"c_preferred_cust_flag": flag, "c_birth_day": int64(1 + c%28), "c_birth_month": int64(1 + c%12),
			"c_birth_year": int64(1930 + c%60), "c_birth_country": pick([]string{"UNITED STATES", "CANADA", "MEXICO", "FRANCE"}, c, 6),
			"c_login": nil, "c_email_address": fmt.Sprintf("c%d@example.com", c), "c_last_review_date_sk": dateSK(int(mix(c, 7) % tpcdsSales))})
	}
	for i := 1; i <= nItems; i++ {
		cat := tpcdsCategory[i%len(tpcdsCategory)]
		classes := tpcdsClasses[cat]
		class := classes[(i/len(tpcdsCategory))%len(classes)]
		man := tpcdsManufacts[i%len(tpcdsManufacts)]
		g.add("item", map[string]any{"i_item_sk": int64(i), "i_item_id": fmt.Sprintf("ITEM%08d", i),
			"i_rec_start_date": "1997-10-27", "i_rec_end_date": nil, "i_item_desc": fmt.Sprintf("item %d of %s %s", i, cat, class),
			"i_current_price": cents(tpcdsPrices[i%len(tpcdsPrices)]), "i_wholesale_cost": cents(tpcdsPrices[i%len(tpcdsPrices)] / 2),
			"i_brand_id": int64(1000 + i%len(tpcdsBrands)), "i_brand": tpcdsBrands[i%len(tpcdsBrands)],
			"i_class_id": int64(1 + (i/len(tpcdsCategory))%len(classes)), "i_class": class,
			"i_category_id": int64(1 + i%len(tpcdsCategory)), "i_category": cat, "i_manufact_id": man,
			"i_manufact": fmt.Sprintf("manufact%d", man%7), "i_size": tpcdsSizes[i%len(tpcdsSizes)],
			"i_color": tpcdsColors[i%len(tpcdsColors)], "i_units": tpcdsUnits[i%len(tpcdsUnits)],
			"i_container": "Unknown", "i_manager_id": int64(1 + i%40), "i_product_name": fmt.Sprintf("product%d", i%150)})
	}
	for p := 1; p <= nPromos; p++ {
		yn := func(k int) string { return pick([]string{"Y", "N"}, p, k) }
		g.add("promotion", map[string]any{"p_promo_sk": int64(p), "p_promo_id": fmt.Sprintf("PROMO%04d", p),
			"p_start_date_sk": dateSK(p * 50), "p_end_date_sk": dateSK(p*50 + 60), "p_item_sk": int64(1 + p%nItems),
			"p_channel_dmail": yn(1), "p_channel_email": yn(2), "p_channel_catalog": yn(3), "p_channel_tv": yn(4),
			"p_channel_radio": yn(5), "p_channel_press": yn(6), "p_channel_event": yn(7), "p_channel_demo": yn(8),
			"p_discount_active": yn(9)})
	}
	for r := 1; r <= nReasons; r++ {
		g.add("reason", map[string]any{"r_reason_sk": int64(r), "r_reason_id": fmt.Sprintf("R%04d", r), "r_reason_desc": fmt.Sprintf("reason %d", r)})
	}
	for s := 1; s <= nShipModes; s++ {
		g.add("ship_mode", map[string]any{"sm_ship_mode_sk": int64(s), "sm_ship_mode_id": fmt.Sprintf("SM%04d", s),
			"sm_type": pick([]string{"EXPRESS", "NEXT DAY", "OVERNIGHT", "REGULAR", "LIBRARY", "TWO DAY"}, s, 1), "sm_code": "AIR",
			"sm_carrier": []string{"DHL", "BARIAN", "UPS", "FEDEX", "USPS"}[s%5], "sm_contract": fmt.Sprintf("c%d", s)})
	}
	for s := 1; s <= nStores; s++ {
		county, state, city := "Williamson County", "TN", tpcdsCities[s%2]
		if s%3 == 0 {
			county, state, city = tpcdsCounties[s%len(tpcdsCounties)], tpcdsStates[s%len(tpcdsStates)], tpcdsCities[s%len(tpcdsCities)]
		}
		g.add("store", map[string]any{"s_store_sk": int64(s), "s_store_id": fmt.Sprintf("STORE%04d", (s+1)/2),
			"s_rec_start_date": "1997-03-13", "s_rec_end_date": nil, "s_closed_date_sk": nil,
			"s_store_name": tpcdsStores[s%len(tpcdsStores)], "s_number_employees": int64(200 + s*9),
			"s_floor_space": int64(5000000 + s*1000), "s_market_id": int64(1 + s%10), "s_geography_class": "Unknown",
			"s_division_id": int64(1), "s_division_name": "Unknown", "s_company_id": int64(1 + s%2),
			"s_company_name": []string{"Unknown", "ought"}[s%2], "s_street_number": fmt.Sprint(s * 31),
			"s_city": city, "s_county": county, "s_state": state, "s_zip": tpcdsZips[s%len(tpcdsZips)],
			"s_country": "United States", "s_gmt_offset": tpcdsOffsets[s%2], "s_tax_precentage": "0.05"})
	}
	for w := 1; w <= nWarehouse; w++ {
		g.add("warehouse", map[string]any{"w_warehouse_sk": int64(w), "w_warehouse_id": fmt.Sprintf("WH%04d", w),
			"w_warehouse_name": fmt.Sprintf("Warehouse number %d of the company", w), "w_warehouse_sq_ft": int64(100000 * w),
			"w_city": tpcdsCities[w%len(tpcdsCities)], "w_county": tpcdsCounties[w%len(tpcdsCounties)],
			"w_state": tpcdsStates[w%len(tpcdsStates)], "w_country": "United States", "w_gmt_offset": "-5.00"})
	}
	for p := 1; p <= nWebPages; p++ {
		g.add("web_page", map[string]any{"wp_web_page_sk": int64(p), "wp_web_page_id": fmt.Sprintf("WP%04d", p),
			"wp_char_count": int64(4900 + p*7%400), "wp_customer_sk": nil})
	}
	for s := 1; s <= nWebSites; s++ {
		g.add("web_site", map[string]any{"web_site_sk": int64(s), "web_site_id": fmt.Sprintf("SITE%04d", s),
			"web_name": fmt.Sprintf("site_%d", s%3), "web_company_name": []string{"pri", "ought", "able"}[s%3]})
	}
	for c := 1; c <= nCallCtrs; c++ {
		g.add("call_center", map[string]any{"cc_call_center_sk": int64(c), "cc_call_center_id": fmt.Sprintf("CC%04d", c),
			"cc_name": pick([]string{"NY Metro", "Mid Atlantic", "North Midwest"}, c, 1), "cc_manager": tpcdsFirst[c%len(tpcdsFirst)],
			"cc_county": tpcdsCounties[c%2], "cc_state": "TN"})
	}
	for p := 1; p <= nCatPages; p++ {
		g.add("catalog_page", map[string]any{"cp_catalog_page_sk": int64(p), "cp_catalog_page_id": fmt.Sprintf("CP%06d", p)})
	}
}
