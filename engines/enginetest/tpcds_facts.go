package enginetest

// Fact sizes: tickets and orders, each of several lines.
const (
	nTickets       = 1300 // store_sales tickets, 1 to 20 lines
	nCatalogOrders = 900  // catalog_sales orders, 1 to 8 lines
	nWebOrders     = 800  // web_sales orders, 1 to 6 lines
	nInvItems      = 48   // items with inventory rows
)

// sale is the money of one sales line, in cents.
type sale struct {
	qty                                                 int
	wholesale, list, price, extDisc, extSales, extWhole int
	extList, tax, coupon, shipCost, netPaid, netPaidTax int
	netPaidShip, netPaidShipTax, netProfit              int
}

// money derives a line's amounts from the hash of (a, b), keeping every
// extended amount within decimal(7,2).
func money(a, b int) sale {
	var s sale
	s.qty = 1 + int(mix(a, b)%100)
	s.wholesale = 100 + int(mix(a, b+1)%9900)
	s.list = s.wholesale * (100 + int(mix(a, b+2)%100)) / 100
	s.price = s.list * (100 - int(mix(a, b+3)%30)) / 100
	s.extSales = s.price * s.qty
	s.extWhole = s.wholesale * s.qty
	s.extList = s.list * s.qty
	s.extDisc = s.extList - s.extSales
	s.tax = s.extSales * 8 / 100
	if mix(a, b+4)%5 == 0 {
		s.coupon = s.extSales * int(mix(a, b+5)%50) / 100
	}
	s.shipCost = s.extList * int(mix(a, b+6)%10) / 100
	s.netPaid = s.extSales - s.coupon
	s.netPaidTax = s.netPaid + s.tax
	s.netPaidShip = s.netPaid + s.shipCost
	s.netPaidShipTax = s.netPaidShip + s.tax
	s.netProfit = s.netPaid - s.extWhole
	return s
}

// ret is the money of one return of q of a line's units, in cents.
type ret struct {
	qty, amt, tax, amtTax, fee, ship, cash, reversed, credit, loss int
}

func refund(s sale, a, b int) ret {
	var r ret
	r.qty = 1 + int(mix(a, b)%uint64(s.qty))
	r.amt = r.qty * s.price
	r.tax = r.amt * 8 / 100
	r.amtTax = r.amt + r.tax
	r.fee = 50 + int(mix(a, b+1)%9000)
	r.ship = r.amt * int(mix(a, b+2)%10) / 100
	r.cash = r.amt * int(mix(a, b+3)%100) / 100
	r.reversed = (r.amt - r.cash) / 2
	r.credit = r.amt - r.cash - r.reversed
	r.loss = r.fee + r.ship + r.tax/2
	return r
}

// orNull returns nil for about one row in n (by the hash), else v.
func orNull(v int64, a, b, n int) any {
	if mix(a, b)%uint64(n) == 0 {
		return nil
	}
	return v
}

// retDay is a return's day: up to 120 days after the sale, within date_dim.
func retDay(day, a, b int) int { return min(day+1+int(mix(a, b)%120), tpcdsDays-1) }

func (g *tpcdsGen) facts() {
	g.storeSales()
	g.catalogSales()
	g.webSales()
	// inventory: weekly counts for 1999–2002 of the first items in every
	// warehouse, mostly small, some in 100–500, some large (so the
	// coefficient of variation of a month exceeds 1 now and then).
	for d := 365; d < tpcdsSales; d += 7 {
		for i := 1; i <= nInvItems; i++ {
			for w := 1; w <= nWarehouse; w++ {
				h := d*1000 + i*10 + w
				var q int64
				switch mix(h, 1) % 4 {
				case 0:
					q = 1000 + int64(mix(h, 2)%200)
				case 1:
					q = 100 + int64(mix(h, 2)%400)
				default:
					q = int64(mix(h, 2) % 20)
				}
				g.add("inventory", map[string]any{"inv_date_sk": dateSK(d), "inv_item_sk": int64(i),
					"inv_warehouse_sk": int64(w), "inv_quantity_on_hand": q})
			}
		}
	}
}

func (g *tpcdsGen) storeSales() {
	for t := 1; t <= nTickets; t++ {
		day := int(mix(t, 1) % tpcdsSales)
		tm := int64(mix(t, 2)%1440) * 60
		cust := int64(1 + mix(t, 3)%nCustomers)
		cdemo := int64(1 + mix(t, 4)%210)
		hdemo := int64(1 + mix(t, 5)%360)
		addr := orNull(int64(1+mix(t, 6)%nAddresses), t, 7, 40)
		store := orNull(int64(1+mix(t, 8)%nStores), t, 9, 50)
		lines := 1 + int(mix(t, 10)%20)
		base := int(mix(t, 11) % nItems)
		for l := 1; l <= lines; l++ {
			item := int64(1 + (base+l*37)%nItems)
			if l == 1 && t%4 == 0 {
				item = int64(1 + t%nInvItems)
			}
			m := money(t*100+l, 1)
			g.add("store_sales", map[string]any{"ss_sold_date_sk": dateSK(day), "ss_sold_time_sk": tm, "ss_item_sk": item,
				"ss_customer_sk": cust, "ss_cdemo_sk": cdemo, "ss_hdemo_sk": hdemo, "ss_addr_sk": addr, "ss_store_sk": store,
				"ss_promo_sk": int64(1 + mix(t, l+20)%nPromos), "ss_ticket_number": int64(t), "ss_quantity": int64(m.qty),
				"ss_wholesale_cost": cents(m.wholesale), "ss_list_price": cents(m.list), "ss_sales_price": cents(m.price),
				"ss_ext_discount_amt": cents(m.extDisc), "ss_ext_sales_price": cents(m.extSales),
				"ss_ext_wholesale_cost": cents(m.extWhole), "ss_ext_list_price": cents(m.extList), "ss_ext_tax": cents(m.tax),
				"ss_coupon_amt": cents(m.coupon), "ss_net_paid": cents(m.netPaid), "ss_net_paid_inc_tax": cents(m.netPaidTax),
				"ss_net_profit": cents(m.netProfit)})
			if mix(t, l+40)%5 != 0 {
				continue
			}
			r := refund(m, t*100+l, 50)
			rd := retDay(day, t, l+60)
			g.add("store_returns", map[string]any{"sr_returned_date_sk": dateSK(rd), "sr_return_time_sk": tm, "sr_item_sk": item,
				"sr_customer_sk": cust, "sr_cdemo_sk": cdemo, "sr_hdemo_sk": hdemo, "sr_addr_sk": addr, "sr_store_sk": store,
				"sr_reason_sk": int64(1 + mix(t, l+70)%nReasons), "sr_ticket_number": int64(t), "sr_return_quantity": int64(r.qty),
				"sr_return_amt": cents(r.amt), "sr_return_tax": cents(r.tax), "sr_return_amt_inc_tax": cents(r.amtTax),
				"sr_fee": cents(r.fee), "sr_return_ship_cost": cents(r.ship), "sr_refunded_cash": cents(r.cash),
				"sr_reversed_charge": cents(r.reversed), "sr_store_credit": cents(r.credit), "sr_net_loss": cents(r.loss)})
		}
	}
}

func (g *tpcdsGen) catalogSales() {
	for o := 1; o <= nCatalogOrders; o++ {
		day := int(mix(o, 101) % tpcdsSales)
		tm := int64(mix(o, 102)%1440) * 60
		bill := int64(1 + mix(o, 103)%nCustomers)
		ship := bill
		if o%5 == 0 {
			ship = int64(1 + mix(o, 104)%nCustomers)
		}
		billAddr := int64(1 + mix(o, 105)%nAddresses)
		lines := 1 + int(mix(o, 106)%8)
		base := int(mix(o, 107) % nItems)
		for l := 1; l <= lines; l++ {
			item := int64(1 + (base+l*41)%nItems)
			if l == 1 && o%3 == 0 {
				item = int64(1 + o%nInvItems)
			}
			m := money(o*100+l, 2)
			shipDay := min(day+1+int(mix(o, l+110)%150), tpcdsDays-1)
			cdemo := int64(1 + mix(o, 108)%210)
			hdemo := int64(1 + mix(o, 109)%360)
			g.add("catalog_sales", map[string]any{"cs_sold_date_sk": dateSK(day), "cs_sold_time_sk": tm, "cs_ship_date_sk": dateSK(shipDay),
				"cs_bill_customer_sk": bill, "cs_bill_cdemo_sk": cdemo, "cs_bill_hdemo_sk": hdemo, "cs_bill_addr_sk": billAddr,
				"cs_ship_customer_sk": ship, "cs_ship_cdemo_sk": cdemo, "cs_ship_hdemo_sk": hdemo,
				"cs_ship_addr_sk": orNull(billAddr, o, l+111, 40), "cs_call_center_sk": int64(1 + mix(o, 112)%nCallCtrs),
				"cs_catalog_page_sk": int64(1 + mix(o, l+113)%nCatPages), "cs_ship_mode_sk": int64(1 + mix(o, l+114)%nShipModes),
				"cs_warehouse_sk": int64(1 + mix(o, l+115)%nWarehouse), "cs_item_sk": item,
				"cs_promo_sk": orNull(int64(1+mix(o, l+116)%nPromos), o, l+117, 10), "cs_order_number": int64(o),
				"cs_quantity": int64(m.qty), "cs_wholesale_cost": cents(m.wholesale), "cs_list_price": cents(m.list),
				"cs_sales_price": cents(m.price), "cs_ext_discount_amt": cents(m.extDisc), "cs_ext_sales_price": cents(m.extSales),
				"cs_ext_wholesale_cost": cents(m.extWhole), "cs_ext_list_price": cents(m.extList), "cs_ext_tax": cents(m.tax),
				"cs_coupon_amt": cents(m.coupon), "cs_ext_ship_cost": cents(m.shipCost), "cs_net_paid": cents(m.netPaid),
				"cs_net_paid_inc_tax": cents(m.netPaidTax), "cs_net_paid_inc_ship": cents(m.netPaidShip),
				"cs_net_paid_inc_ship_tax": cents(m.netPaidShipTax), "cs_net_profit": cents(m.netProfit)})
			if mix(o, l+120)%5 != 0 {
				continue
			}
			r := refund(m, o*100+l, 130)
			g.add("catalog_returns", map[string]any{"cr_returned_date_sk": dateSK(retDay(shipDay, o, l+121)), "cr_returned_time_sk": tm,
				"cr_item_sk": item, "cr_refunded_customer_sk": bill, "cr_refunded_cdemo_sk": cdemo, "cr_refunded_hdemo_sk": hdemo,
				"cr_refunded_addr_sk": billAddr, "cr_returning_customer_sk": bill, "cr_returning_cdemo_sk": cdemo,
				"cr_returning_hdemo_sk": hdemo, "cr_returning_addr_sk": billAddr, "cr_call_center_sk": int64(1 + mix(o, 112)%nCallCtrs),
				"cr_catalog_page_sk": int64(1 + mix(o, l+113)%nCatPages), "cr_ship_mode_sk": int64(1 + mix(o, l+114)%nShipModes),
				"cr_warehouse_sk": int64(1 + mix(o, l+115)%nWarehouse), "cr_reason_sk": int64(1 + mix(o, l+122)%nReasons),
				"cr_order_number": int64(o), "cr_return_quantity": int64(r.qty), "cr_return_amount": cents(r.amt),
				"cr_return_tax": cents(r.tax), "cr_return_amt_inc_tax": cents(r.amtTax), "cr_fee": cents(r.fee),
				"cr_return_ship_cost": cents(r.ship), "cr_refunded_cash": cents(r.cash), "cr_reversed_charge": cents(r.reversed),
				"cr_store_credit": cents(r.credit), "cr_net_loss": cents(r.loss)})
		}
	}
}

func (g *tpcdsGen) webSales() {
	for o := 1; o <= nWebOrders; o++ {
		day := int(mix(o, 201) % tpcdsSales)
		tm := int64(mix(o, 202)%1440) * 60
		bill := int64(1 + mix(o, 203)%nCustomers)
		billAddr := int64(1 + mix(o, 204)%nAddresses)
		cdemo := int64(1 + mix(o, 205)%210)
		hdemo := int64(1 + mix(o, 206)%360)
		lines := 1 + int(mix(o, 207)%6)
		base := int(mix(o, 208) % nItems)
		for l := 1; l <= lines; l++ {
			item := int64(1 + (base+l*43)%nItems)
			m := money(o*100+l, 3)
			shipDay := min(day+1+int(mix(o, l+210)%150), tpcdsDays-1)
			g.add("web_sales", map[string]any{"ws_sold_date_sk": dateSK(day), "ws_sold_time_sk": tm, "ws_ship_date_sk": dateSK(shipDay),
				"ws_item_sk": item, "ws_bill_customer_sk": bill, "ws_bill_cdemo_sk": cdemo, "ws_bill_hdemo_sk": hdemo,
				"ws_bill_addr_sk": billAddr, "ws_ship_customer_sk": orNull(bill, o, l+211, 40), "ws_ship_cdemo_sk": cdemo,
				"ws_ship_hdemo_sk": hdemo, "ws_ship_addr_sk": billAddr, "ws_web_page_sk": int64(1 + mix(o, l+212)%nWebPages),
				"ws_web_site_sk": int64(1 + mix(o, 213)%nWebSites), "ws_ship_mode_sk": int64(1 + mix(o, l+214)%nShipModes),
				"ws_warehouse_sk": int64(1 + mix(o, l+215)%nWarehouse), "ws_promo_sk": int64(1 + mix(o, l+216)%nPromos),
				"ws_order_number": int64(o), "ws_quantity": int64(m.qty), "ws_wholesale_cost": cents(m.wholesale),
				"ws_list_price": cents(m.list), "ws_sales_price": cents(m.price), "ws_ext_discount_amt": cents(m.extDisc),
				"ws_ext_sales_price": cents(m.extSales), "ws_ext_wholesale_cost": cents(m.extWhole),
				"ws_ext_list_price": cents(m.extList), "ws_ext_tax": cents(m.tax), "ws_coupon_amt": cents(m.coupon),
				"ws_ext_ship_cost": cents(m.shipCost), "ws_net_paid": cents(m.netPaid), "ws_net_paid_inc_tax": cents(m.netPaidTax),
				"ws_net_paid_inc_ship": cents(m.netPaidShip), "ws_net_paid_inc_ship_tax": cents(m.netPaidShipTax),
				"ws_net_profit": cents(m.netProfit)})
			if mix(o, l+220)%5 != 0 {
				continue
			}
			r := refund(m, o*100+l, 230)
			g.add("web_returns", map[string]any{"wr_returned_date_sk": dateSK(retDay(shipDay, o, l+221)), "wr_returned_time_sk": tm,
				"wr_item_sk": item, "wr_refunded_customer_sk": bill, "wr_refunded_cdemo_sk": cdemo, "wr_refunded_hdemo_sk": hdemo,
				"wr_refunded_addr_sk": billAddr, "wr_returning_customer_sk": bill, "wr_returning_cdemo_sk": cdemo,
				"wr_returning_hdemo_sk": hdemo, "wr_returning_addr_sk": billAddr, "wr_web_page_sk": int64(1 + mix(o, l+212)%nWebPages),
				"wr_reason_sk": int64(1 + mix(o, l+222)%nReasons), "wr_order_number": int64(o), "wr_return_quantity": int64(r.qty),
				"wr_return_amt": cents(r.amt), "wr_return_tax": cents(r.tax), "wr_return_amt_inc_tax": cents(r.amtTax),
				"wr_fee": cents(r.fee), "wr_return_ship_cost": cents(r.ship), "wr_refunded_cash": cents(r.cash),
				"wr_reversed_charge": cents(r.reversed), "wr_account_credit": cents(r.credit), "wr_net_loss": cents(r.loss)})
		}
	}
}
